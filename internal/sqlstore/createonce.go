package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/skygate/skygate"
)

// maxEventsAtOnce bounds the events a booking's creation may write for it to run as one
// statement (createBookingAtOnce); the creation writes one. More would each need an
// INSERT of their own in the statement, and PostgreSQL runs a statement's INSERTs in
// no set order, so their feed positions (seq) could disagree with their order.
const maxEventsAtOnce = 1

// createAtOnceRetries bounds how often createBookingAtOnce runs again when the key was
// held by a record that is gone by the time it reads it (purged as expired in between).
const createAtOnceRetries = 3

// createBookingAtOnce is CreateBooking as one statement (createBookingSQL) on an engine
// with writable CTEs: the key's claim, the booking, its events and their webhook
// deliveries are written together or not at all, in one round trip instead of a
// transaction of six (BEGIN, the key, the booking, the events, the subscription's
// lookup, COMMIT). Each of those was a wait for the database and, on PostgreSQL, a
// wakeup of its backend; at the creation's rate they were most of both processes' work.
// The semantics are CreateBooking's: the statement's INSERT … ON CONFLICT waits for a
// concurrent holder of the key, and when a live record holds it writes nothing, and the
// record is read after it.
func (s *Store) createBookingAtOnce(ctx context.Context, rec *skygate.IdempotencyRecord, row []any, events []*skygate.Event) (*skygate.IdempotencyRecord, error) {
	args := make([]any, 0, idempotencyArgs+len(row)+len(events)*(eventArgs+deliveryArgs))
	args = append(args, s.idempotencyRow(rec)...)
	args = append(args, row...)
	for _, e := range events {
		e.CreatedAt = utc(e.CreatedAt)
		if e.Data == nil {
			e.Data = []byte("{}")
		}
		body, err := json.Marshal(e)
		if err != nil {
			return nil, fmt.Errorf("encode event %s: %w", e.ID, err)
		}
		created := s.time(e.CreatedAt)
		args = append(args, e.ID, e.AccountID, e.Type, string(e.Data), created,
			skygate.NewID(), e.AccountID, e.ID, e.Type, string(body), created, created, created, e.AccountID)
	}
	for range createAtOnceRetries {
		var claimed, delivered int
		err := s.write.QueryRowContext(ctx, s.createAtOnce[len(events)], args...).Scan(&claimed, &delivered)
		if err != nil {
			return nil, err
		}
		if claimed > 0 {
			if delivered > 0 {
				if f := s.onDeliveries.Load(); f != nil {
					(*f)()
				}
			}
			return nil, nil
		}
		stored, err := scanIdempotency(s.write.QueryRowContext(ctx, s.q(qIdempotency), rec.AccountID, rec.Operation, rec.Key))
		if !errors.Is(err, sql.ErrNoRows) {
			return stored, err
		}
	}
	return nil, fmt.Errorf("idempotency key %q: held by a record that was gone when read, %d times", rec.Key, createAtOnceRetries)
}

// The arguments each part of createBookingSQL takes, in its order.
const (
	idempotencyArgs = 9  // idempotencyColumns
	eventArgs       = 5  // id, account_id, type, data, created_at
	deliveryArgs    = 9  // id, account_id, event_id, event_type, body, next_attempt_at, created_at, updated_at, the subscription's account
	bookingArgs     = 17 // bookingColumns
)

// createBookingSQL is the "?" form of createBookingAtOnce's statement for n events
// (at most maxEventsAtOnce). Its arguments: the record's (idempotencyColumns), the
// booking's (bookingColumns), then per event its row's and its delivery's. Every INSERT after the key's selects
// from k, the key's claim, so none writes when the key is held; each event's delivery
// also joins the account's active subscription, locked FOR KEY SHARE as
// qActiveWebhookShare does, and inserts nothing without one. PostgreSQL types the
// arguments of an INSERT … SELECT by the columns they fill, so they need no casts. The
// row it returns counts the claimed keys (0 or 1) and the deliveries written.
func createBookingSQL(n int) string {
	var b strings.Builder
	b.WriteString(`WITH k AS (` + insertIdempotency + ` RETURNING 1),
	b AS (INSERT INTO bookings (` + bookingColumns + `) SELECT ` + params(bookingArgs) + ` FROM k)`)
	for i := range n {
		fmt.Fprintf(&b, `,
	e%d AS (INSERT INTO events (id, account_id, type, data, created_at) SELECT %s FROM k),
	d%d AS (INSERT INTO webhook_deliveries (id, subscription_id, account_id, event_id, event_type, body,
		status, attempts, next_attempt_at, last_status_code, last_error, created_at, updated_at)
		SELECT ?, w.id, ?, ?, ?, ?, 'pending', 0, ?, 0, '', ?, ?
		FROM k, webhook_subscriptions w WHERE w.account_id = ? AND w.active FOR KEY SHARE OF w
		ON CONFLICT (subscription_id, event_id) DO NOTHING RETURNING 1)`, i, params(eventArgs), i)
	}
	b.WriteString(`
	SELECT (SELECT COUNT(*) FROM k), 0`)
	for i := range n {
		fmt.Fprintf(&b, ` + (SELECT COUNT(*) FROM d%d)`, i)
	}
	return b.String()
}

// params is n comma-separated "?".
func params(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }
