package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

const eventNotFound = "event not found"

// An event's position in the feed (Event.Seq) is its seq, assigned at insert: the
// single writer commits one transaction at a time, so seq is also the order in which
// events become visible.
const (
	insertEvent = `INSERT INTO events (id, account_id, type, data, created_at)
		VALUES (?, ?, ?, ?, ?)`
	// insertEventDelivery enqueues a pending delivery of an event to its account's
	// active subscription, if any, due at the event's creation. The WHERE clause lets
	// SQLite tell the upsert's ON CONFLICT from a join's ON.
	insertEventDelivery = `INSERT INTO webhook_deliveries (id, subscription_id, account_id,
			event_id, event_type, body, status, attempts, next_attempt_at, last_status_code,
			last_error, created_at, updated_at)
		SELECT ?, id, account_id, ?, ?, ?, 'pending', 0, ?, 0, '', ?, ?
		FROM webhook_subscriptions WHERE account_id = ? AND active
		ON CONFLICT (subscription_id, event_id) DO NOTHING`
	selectEvent = `SELECT seq, id, account_id, type, data, created_at FROM events
		WHERE account_id = ? AND id = ?`
	selectEventsAfter = `SELECT seq, id, account_id, type, data, created_at FROM events
		WHERE seq > ? ORDER BY seq LIMIT ?`
)

// OnDeliveries sets f to be called after every commit of a transaction that enqueued
// webhook deliveries, so that a dispatcher in this process can send them at once.
// Events of an account without an active subscription enqueue none and call nothing.
// f must not block.
func (s *Store) OnDeliveries(f func()) { s.group.onDeliveries.Store(&f) }

// scanEvent reads seq, id, account_id, type, data, created_at.
func scanEvent(row sqlstore.Scanner) (*skygate.Event, error) {
	var (
		e    skygate.Event
		data []byte
	)
	if err := row.Scan(&e.Seq, &e.ID, &e.AccountID, &e.Type, &data, sqlstore.TimeCol(&e.CreatedAt)); err != nil {
		return nil, err
	}
	e.Data = data
	return &e, nil
}

// insertEvents appends events to the outbox inside tx, the transaction of the change
// they describe, each with its webhook delivery, so that an event and its delivery
// commit together or not at all. A transaction that enqueued a delivery is marked so
// that the OnDeliveries function runs after its commit.
func (s *Store) insertEvents(ctx context.Context, tx *sql.Tx, events []*skygate.Event) error {
	enqueued := false
	for _, e := range events {
		e.CreatedAt = sqlstore.UTC(e.CreatedAt)
		if e.Data == nil {
			e.Data = []byte("{}")
		}
		created := micros(e.CreatedAt)
		if _, err := tx.ExecContext(ctx, insertEvent, e.ID, e.AccountID, e.Type, string(e.Data), created); err != nil {
			return fmt.Errorf("sqlite: insert event %s: %w", e.ID, err)
		}
		// The delivery keeps the event's envelope, encoded once, as the body of every
		// attempt.
		body, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("encode event %s: %w", e.ID, err)
		}
		res, err := tx.ExecContext(ctx, insertEventDelivery, skygate.NewID(), e.ID, e.Type, string(body),
			created, created, created, e.AccountID)
		if err != nil {
			return fmt.Errorf("sqlite: enqueue delivery of event %s: %w", e.ID, err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n > 0 {
			enqueued = true
		}
	}
	if enqueued {
		s.group.markDeliveries(tx)
	}
	return nil
}

// Event implements skygate.BookingStore.
func (s *Store) Event(ctx context.Context, accountID, eventID string) (*skygate.Event, error) {
	e, err := scanEvent(s.read.QueryRowContext(ctx, selectEvent, accountID, eventID))
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "get event", NotFound: eventNotFound}, err)
	}
	return e, nil
}

// EventsAfter implements skygate.BookingStore. A limit of zero or less returns every
// later event.
func (s *Store) EventsAfter(ctx context.Context, afterSeq int64, limit int) ([]*skygate.Event, error) {
	n, _ := sqlstore.PageArgs(skygate.Page{Limit: limit})
	events, err := sqlstore.QueryAll(ctx, s.read, scanEvent, selectEventsAfter, afterSeq, n)
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "list events"}, err)
	}
	return events, nil
}
