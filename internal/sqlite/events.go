package sqlite

import (
	"context"
	"fmt"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

// An event's position in the feed (Event.Seq) is its seq, assigned at insert: the
// single writer commits one transaction at a time, so seq is also the order in which
// events become visible.
// eventColumns are the columns sqlstore.ScanEvent reads, the feed position first.
const eventColumns = `seq, id, account_id, type, data, created_at, api_version, livemode,
	ordering_key`

const (
	// insertEvent's last insert id is the event's seq, which its deliveries carry.
	insertEvent = `INSERT INTO events (id, account_id, type, data, created_at, ordering_key,
			api_version, livemode)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
	// insertEventDelivery enqueues a pending delivery of an event to its account's
	// active subscription, if any and if its filter accepts the event's type (?3, the
	// event_type; skygate.WebhookSubscription.Accepts), due at the event's creation,
	// with the event's ordering key and seq (the claim's order within one object). The
	// WHERE clause lets SQLite tell the upsert's ON CONFLICT from a join's ON.
	insertEventDelivery = `INSERT INTO webhook_deliveries (id, subscription_id, account_id,
			event_id, event_type, body, status, attempts, next_attempt_at, last_status_code,
			last_error, created_at, updated_at, ordering_key, event_seq)
		SELECT ?, id, account_id, ?, ?, ?, 'pending', 0, ?, 0, '', ?, ?, ?, ?
		FROM webhook_subscriptions WHERE account_id = ? AND active
			AND ?3 <> ` + noticeType + `
			AND (event_types = '[]' OR EXISTS (SELECT 1 FROM json_each(event_types) WHERE value = ?3))
		ON CONFLICT (subscription_id, event_id) DO NOTHING`
	selectEvent = `SELECT ` + eventColumns + ` FROM events
		WHERE account_id = ? AND id = ?`
	selectEventsAfter = `SELECT ` + eventColumns + ` FROM events
		WHERE seq > ? ORDER BY seq LIMIT ?`
)

// OnDeliveries sets f to be called after every commit of a transaction that enqueued
// webhook deliveries, so that a dispatcher in this process can send them at once.
// Events of an account without an active subscription enqueue none and call nothing.
// f must not block.
func (s *Store) OnDeliveries(f func()) { s.group.onDeliveries.Store(&f) }

// OnEvents sets f to be called after every commit of a transaction that wrote events,
// whether or not they enqueued deliveries, with the accounts of the events, so that
// the events API's long-polls of those accounts wake at once. f must not block or keep
// the slice.
func (s *Store) OnEvents(f func(accountIDs []string)) { s.group.onEvents.Store(&f) }

// insertEvents is the store's sqlstore.DB.Events: it appends events to the outbox
// inside tx, each with its webhook delivery, so that an event and its delivery commit
// together or not at all, and counts the deliveries in tx.
func insertEvents(ctx context.Context, tx *sqlstore.Tx, events []*skygate.Event) error {
	for _, e := range events {
		body, err := sqlstore.EventBody(e)
		if err != nil {
			return err
		}
		created := e.CreatedAt.UnixMicro()
		res, err := tx.ExecContext(ctx, insertEvent, e.ID, e.AccountID, e.Type, string(e.Data), created,
			e.OrderingKey, e.APIVersion, e.Livemode)
		if err != nil {
			return fmt.Errorf("sqlite: insert event %s: %w", e.ID, err)
		}
		seq, err := res.LastInsertId() // seq is the rowid (INTEGER PRIMARY KEY)
		if err != nil {
			return err
		}
		res, err = tx.ExecContext(ctx, insertEventDelivery, skygate.NewID(), e.ID, e.Type, string(body),
			created, created, created, e.OrderingKey, seq, e.AccountID)
		if err != nil {
			return fmt.Errorf("sqlite: enqueue delivery of event %s: %w", e.ID, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		tx.Delivered += int(n)
	}
	tx.WroteEvents(events)
	return nil
}

// Event implements skygate.BookingStore.
func (s *Store) Event(ctx context.Context, accountID, eventID string) (*skygate.Event, error) {
	return sqlstore.Get(ctx, s.db, sqlstore.Outcome{Op: "get event", NotFound: sqlstore.EventNotFound},
		sqlstore.ScanEvent, selectEvent, accountID, eventID)
}

// EventsAfter implements skygate.BookingStore. A limit of zero or less returns every
// later event.
func (s *Store) EventsAfter(ctx context.Context, afterSeq int64, limit int) ([]*skygate.Event, error) {
	n, _ := sqlstore.PageArgs(skygate.Page{Limit: limit})
	return sqlstore.All(ctx, s.db, "list events", sqlstore.ScanEvent, selectEventsAfter, afterSeq, n)
}
