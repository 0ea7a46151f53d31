package postgres

import (
	"context"
	"time"

	"github.com/skygate/skygate/internal/sqlstore"
)

// The maintenance of personal data at rest: its removal after the retention, and the
// sealing of rows written in clear. Both run across accounts, for the booking worker
// of every replica at once: each locks the rows it takes and skips rows another caller
// holds, and the conditions of every UPDATE are rechecked on the row, so a row is
// changed once whoever gets to it.
const (
	erasePassengerData = `UPDATE bookings SET passenger_data = NULL, personal_data_removed_at = $1
		WHERE passenger_data IS NOT NULL AND id IN (SELECT id FROM bookings
			WHERE passenger_data IS NOT NULL AND service_date < $2 ORDER BY service_date, id
			LIMIT $3 FOR UPDATE SKIP LOCKED)`

	// A booking written in clear has neither its sealed passengers nor a removal
	// (the partial index bookings_passengers_unsealed).
	selectUnsealedBookings = `SELECT id, account_id, passengers FROM bookings
		WHERE passenger_data IS NULL AND personal_data_removed_at IS NULL ORDER BY id
		LIMIT $1 FOR UPDATE SKIP LOCKED`
	sealBooking = `UPDATE bookings SET passengers = $1, passenger_data = $2
		WHERE account_id = $3 AND id = $4 AND passenger_data IS NULL AND personal_data_removed_at IS NULL`

	selectUnsealedRecords = `SELECT account_id, operation, idem_key, fingerprint, status_code,
		resource_id, body, created_at, expires_at, sealed
		FROM idempotency_records WHERE NOT sealed ORDER BY account_id, operation, idem_key
		LIMIT $1 FOR UPDATE SKIP LOCKED`
	// created_at tells the record read from one that replaced it since (an expired key
	// used again by an older release).
	sealRecord = `UPDATE idempotency_records SET fingerprint = $1, body = $2, sealed = true
		WHERE account_id = $3 AND operation = $4 AND idem_key = $5 AND NOT sealed AND created_at = $6`
)

// ErasePassengerData implements skygate.BookingStore.
func (s *Store) ErasePassengerData(ctx context.Context, serviceDateBefore string, now time.Time, limit int) (int, error) {
	return sqlstore.ErasePassengerData(ctx, s.db, erasePassengerData, serviceDateBefore, now, limit)
}

// SealLegacyData implements skygate.BookingStore.
func (s *Store) SealLegacyData(ctx context.Context, limit int) (int, error) {
	return sqlstore.SealLegacyData(ctx, s.db, selectUnsealedBookings, sealBooking, selectUnsealedRecords, sealRecord, limit)
}
