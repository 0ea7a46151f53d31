package postgres

import (
	"context"
	"database/sql"
	"fmt"
)

// MigrateTo applies the migrations up to and including version, for tests of what a
// later migration does to rows written before it.
func (s *Store) MigrateTo(ctx context.Context, version int64) error {
	p, err := s.migrations()
	if err != nil {
		return err
	}
	if _, err := p.UpTo(ctx, version); err != nil {
		return fmt.Errorf("postgres: migrate to %d: %w", version, err)
	}
	return nil
}

// DB returns the pool, for tests that read and write rows as they are stored.
func (s *Store) DB() *sql.DB { return s.pool }

// DueBookingClaims maps each partial index of migration 00008 (bookings_due_indexes)
// to the worker's claim statement it must serve.
var DueBookingClaims = map[string]string{
	"bookings_pending_created":       claimPending,
	"bookings_issued_confirm_before": claimIssued,
}

// PassengerDataScans maps each partial index of migration 00011 (passenger_data) to
// the worker's statement it must serve and that statement's arguments.
var PassengerDataScans = map[string]struct {
	Query string
	Args  []any
}{
	"bookings_passenger_data_due":  {erasePassengerData, []any{"2026-01-01T00:00:00Z", "2025-01-01", 1}},
	"bookings_passengers_unsealed": {selectUnsealedBookings, []any{1}},
	"idempotency_records_unsealed": {selectUnsealedRecords, []any{1}},
}

// WebhookBacklogQuery is the statement of WebhookBacklog, which must read the pending
// deliveries off webhook_deliveries_due.
const WebhookBacklogQuery = webhookBacklog

// WebhookClaimQuery is the dispatcher's claim, whose ordering check must read
// webhook_deliveries_ordering.
const WebhookClaimQuery = claimDeliveries

// SuccessorUpdates are the statements that move the due time of an object's later
// deliveries, which must read webhook_deliveries_ordering.
var SuccessorUpdates = []string{holdSuccessors, releaseSuccessors}

// ExpiringClaimQuery is the claim of the expiry warnings, each of whose windows must
// read esims_expiring.
const ExpiringClaimQuery = claimExpiringESIM
