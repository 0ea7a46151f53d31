package sqlstore

import (
	"context"
	"database/sql"
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
// with writable CTEs: the key's claim, the booking, its event and the event's webhook
// delivery are written together or not at all, in one round trip instead of a
// transaction of six (BEGIN, the key, the booking, the event, the subscription's
// lookup, COMMIT). Each of those was a wait for the database and, on PostgreSQL, a
// wakeup of its backend; at the creation's rate they were most of both processes' work.
// The semantics are CreateBooking's: the statement's INSERT … ON CONFLICT waits for a
// concurrent holder of the key, and when a live record holds it writes nothing, and the
// record is read after it. events holds at most maxEventsAtOnce.
func (s *Store) createBookingAtOnce(ctx context.Context, rec *skygate.IdempotencyRecord, recRow, row []any, events []*skygate.Event) (*skygate.IdempotencyRecord, error) {
	args, err := s.createAtOnceArgs(recRow, row, events)
	if err != nil {
		return nil, err
	}
	for range createAtOnceRetries {
		var claimed, delivered int
		err := s.write.QueryRowContext(ctx, s.createAtOnce[len(events)], args...).Scan(&claimed, &delivered)
		if err != nil {
			return nil, err
		}
		if claimed > 0 {
			if delivered > 0 {
				s.deliveriesCommitted()
			}
			return nil, nil
		}
		stored, err := s.scanIdempotency(s.write.QueryRowContext(ctx, s.q(qIdempotency), rec.AccountID, rec.Operation, rec.Key))
		if !errors.Is(err, sql.ErrNoRows) {
			return stored, err
		}
	}
	return nil, fmt.Errorf("idempotency key %q: held by a record that was gone when read, %d times", rec.Key, createAtOnceRetries)
}

// createAtOnceArgs returns the arguments of createBookingSQL in its order: the
// record's row (idempotencyRow), the booking's row (bookingRow), then the event's, its
// delivery's and the account whose active subscription the delivery joins.
func (s *Store) createAtOnceArgs(recRow, row []any, events []*skygate.Event) ([]any, error) {
	args := append(recRow, row...)
	var err error
	for _, e := range events {
		if args, err = s.eventAtOnceArgs(args, e); err != nil {
			return nil, err
		}
	}
	return args, nil
}

// createBookingSQL is the "?" form of createBookingAtOnce's statement, withEvent for a
// creation that writes an event. Every INSERT after the key's selects from k, the key's
// claim, so none writes when the key is held; the event's delivery also joins the
// account's active subscription, locked as qActiveWebhookShare locks it, and inserts
// nothing without one. PostgreSQL types the arguments of an INSERT … SELECT by the
// columns they fill, so they need no casts. The row it returns counts the claimed keys
// (0 or 1) and the deliveries written.
func createBookingSQL(withEvent bool) string {
	q := `WITH k AS (` + insertIdempotency + ` RETURNING 1),
	b AS (INSERT INTO bookings (` + bookingColumns + `) SELECT ` + placeholders(strings.Count(bookingColumns, ",")+1) + ` FROM k)`
	return withEventThenCount(q, "k", "k", withEvent)
}
