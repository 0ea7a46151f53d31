package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

// An event's position in the feed (Event.Seq) is its pos, given after its commit by
// positionEvents: seq, assigned at insert, can become visible out of order when
// writers commit concurrently, and writers need not commit one at a time.
// eventColumns are the columns sqlstore.ScanEvent reads, the feed position first.
const eventColumns = `pos, id, account_id, type, data, created_at, api_version, livemode,
	ordering_key`

const (
	selectEvent = `SELECT ` + eventColumns + ` FROM events
		WHERE account_id = $1 AND id = $2`
	selectEventsAfter = `SELECT ` + eventColumns + ` FROM events
		WHERE pos > $1 ORDER BY pos LIMIT $2`

	// insertEventsWithDeliveries appends events to the outbox, given as arrays of their
	// columns in feed order, each with a pending delivery to its account's active
	// subscription, if any and if it accepts the event's type, due at the event's
	// creation. FOR KEY SHARE keeps the subscription from being deleted until the
	// transaction ends, so the delivery's foreign key cannot fail under a concurrent
	// delete (which waits, or wins first and is then skipped). A delivery carries its
	// event's ordering key and seq, the identity assigned at this insert (the claim's
	// order within one object). It returns the number of deliveries written.
	insertEventsWithDeliveries = `WITH v AS (
			SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[],
				$5::timestamptz[], $6::text[], $7::text[], $8::text[],
				$9::text[], $10::boolean[])
				WITH ORDINALITY AS v (id, account_id, type, data, created_at, delivery_id, body,
					ordering_key, api_version, livemode, n)
		),
		e AS (
			INSERT INTO events (id, account_id, type, data, created_at, ordering_key,
				api_version, livemode)
			SELECT id, account_id, type, data, created_at, ordering_key,
				api_version, livemode FROM v ORDER BY n
			RETURNING id, seq
		),
		d AS (
			INSERT INTO webhook_deliveries (id, subscription_id, account_id, event_id, event_type,
				body, status, attempts, next_attempt_at, last_status_code, last_error,
				created_at, updated_at, ordering_key, event_seq)
			SELECT v.delivery_id, w.id, v.account_id, v.id, v.type, v.body, 'pending', 0,
				v.created_at, 0, '', v.created_at, v.created_at, v.ordering_key, e.seq
			FROM v JOIN e ON e.id = v.id
				JOIN webhook_subscriptions w ON w.account_id = v.account_id AND w.active
			-- The subscription's filter (skygate.WebhookSubscription.Accepts).
			WHERE v.type <> ` + noticeType + `
				AND (w.event_types = '[]'::jsonb OR w.event_types ? v.type)
			FOR KEY SHARE OF w
			ON CONFLICT (subscription_id, event_id) DO NOTHING
			RETURNING 1
		)
		SELECT count(*) FROM d`

	// lockPositions makes the transactions of positionEvents run one at a time, across
	// replicas too. Its keys are a constant of Skygate's and the events table's oid,
	// so that schemas sharing a database (tests) do not wait for each other.
	lockPositions = `SELECT pg_advisory_xact_lock(1397180225, 'events'::regclass::oid::int)`
	// anyUnpositioned tells whether any committed event lacks a position, off
	// events_unpositioned (seq) WHERE pos IS NULL.
	anyUnpositioned = `SELECT EXISTS (SELECT 1 FROM events WHERE pos IS NULL)`
	// positionEvents gives the oldest events without a position the next positions,
	// in the order of their seq.
	positionEvents = `UPDATE events e SET pos = o.pos
		FROM (SELECT seq, nextval('events_pos_seq') AS pos
			FROM (SELECT seq FROM events WHERE pos IS NULL ORDER BY seq LIMIT $1) AS due) AS o
		WHERE e.seq = o.seq AND e.pos IS NULL`
)

// positionBatch bounds the events one transaction of positionEvents positions.
const positionBatch = 1000

// OnDeliveries sets f to be called after every commit of a transaction that enqueued
// webhook deliveries, so that a dispatcher in this process can send them at once
// (other processes find them when they poll). Events of an account without an active
// subscription enqueue none and call nothing. f must not block.
func (s *Store) OnDeliveries(f func()) {
	s.onDeliveries.Store(&f)
}

// deliveriesCommitted calls the OnDeliveries function, if any, after a commit that
// wrote n deliveries.
func (s *Store) deliveriesCommitted(n int) {
	if f := s.onDeliveries.Load(); f != nil && n > 0 {
		(*f)()
	}
}

// OnEvents sets f to be called after every commit of a transaction that wrote events,
// whether or not they enqueued deliveries, with the accounts of the events, so that
// the events API's long-polls of those accounts in this process wake at once (other
// processes' waiters learn of them by polling the feed's changes). f must not block
// or keep the slice.
func (s *Store) OnEvents(f func(accountIDs []string)) {
	s.onEvents.Store(&f)
}

// eventsCommitted calls the OnEvents function, if any, after a commit that wrote
// events of the accounts.
func (s *Store) eventsCommitted(accountIDs []string) {
	if f := s.onEvents.Load(); f != nil && len(accountIDs) > 0 {
		(*f)(accountIDs)
	}
}

// eventArgs returns the arguments of insertEventsWithDeliveries for events (see
// sqlstore.EventBody): arrays of their columns, a new delivery id, its body and the
// ordering key, then the envelope's api_version and livemode.
func eventArgs(events []*skygate.Event) ([]any, error) {
	var (
		ids, accounts, types, data, deliveries, bodies, keys []string
		created                                              []time.Time
		versions                                             []string
		livemodes                                            []bool
	)
	for _, e := range events {
		body, err := sqlstore.EventBody(e)
		if err != nil {
			return nil, err
		}
		ids, accounts, types = append(ids, e.ID), append(accounts, e.AccountID), append(types, e.Type)
		data, created = append(data, string(e.Data)), append(created, e.CreatedAt)
		deliveries, bodies = append(deliveries, skygate.NewID()), append(bodies, string(body))
		keys = append(keys, e.OrderingKey)
		versions, livemodes = append(versions, e.APIVersion), append(livemodes, e.Livemode)
	}
	return []any{ids, accounts, types, data, created, deliveries, bodies, keys, versions, livemodes}, nil
}

// insertEvents is the store's sqlstore.DB.Events: it appends events to the outbox in
// one statement with their webhook deliveries, so that an event and its delivery
// commit together or not at all, and counts the deliveries in tx.
func insertEvents(ctx context.Context, tx *sqlstore.Tx, events []*skygate.Event) error {
	if len(events) == 0 {
		return nil
	}
	args, err := eventArgs(events)
	if err != nil {
		return err
	}
	var delivered int
	if err := tx.QueryRowContext(ctx, insertEventsWithDeliveries, args...).Scan(&delivered); err != nil {
		return fmt.Errorf("postgres: insert events: %w", err)
	}
	tx.Delivered += delivered
	tx.WroteEvents(events)
	return nil
}

// Event implements skygate.BookingStore.
func (s *Store) Event(ctx context.Context, accountID, eventID string) (*skygate.Event, error) {
	return sqlstore.Get(ctx, s.db, sqlstore.Outcome{Op: "get event", NotFound: sqlstore.EventNotFound},
		sqlstore.ScanEvent, selectEvent, accountID, eventID)
}

// EventsAfter implements skygate.BookingStore. A limit of zero or less returns every
// later event. It positions every committed event first: it serves tests and tools
// that want the whole outbox, never a partner's request.
func (s *Store) EventsAfter(ctx context.Context, afterSeq int64, limit int) ([]*skygate.Event, error) {
	if _, err := s.PositionEvents(ctx); err != nil {
		return nil, err
	}
	n, _ := sqlstore.PageArgs(skygate.Page{Limit: limit})
	return sqlstore.All(ctx, s.db, "list events", sqlstore.ScanEvent, selectEventsAfter, afterSeq, n)
}

// PositionEvents gives every committed event without a position one, a batch at a
// time, and returns how many it positioned. It is the engine's background work, run
// every second or so by every replica (requests position one batch only), so that a
// backlog larger than a batch reaches the feed without a reader waiting for it.
func (s *Store) PositionEvents(ctx context.Context) (int, error) {
	total := 0
	for {
		n, err := s.positionEvents(ctx)
		total += n
		if err != nil {
			return total, s.db.Interpret(sqlstore.Outcome{Op: "position events"}, err)
		}
		if n < positionBatch {
			return total, nil
		}
	}
}

// positionEvents gives the oldest committed events without a position, at most
// positionBatch, the next positions, and returns how many. When none lacks one (the
// common case, read off events_unpositioned), it takes no lock and writes nothing.
// The transaction holds lockPositions, so such transactions run one at a time, each
// after the last committed, and each takes positions above all earlier ones:
// positions become visible in increasing order, and a reader that read up to position
// p never finds a smaller one later. An event that commits while a transaction runs,
// or that a full batch left out, is not positioned by it and gets a larger position
// from a later one. A failed transaction leaves a gap in the positions, never a reuse.
func (s *Store) positionEvents(ctx context.Context) (int, error) {
	var due bool
	if err := s.pool.QueryRowContext(ctx, anyUnpositioned).Scan(&due); err != nil || !due {
		return 0, err
	}
	var n int64
	err := s.inTx(ctx, func(tx *sqlstore.Tx) error {
		if _, err := tx.ExecContext(ctx, lockPositions); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, positionEvents, positionBatch)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return int(n), err
}
