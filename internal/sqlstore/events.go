package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/skygate/skygate"
)

// eventColumns are the columns scanEvent reads. The first is the event's position in
// the feed (Event.Seq): seq itself where one writer at a time inserts (SQLite), pos
// where writers run concurrently (PostgreSQL; see positionEvents).
const (
	eventColumns    = `seq, id, account_id, type, data, created_at`
	eventColumnsPos = `pos, id, account_id, type, data, created_at`
)

// maxEventsPerInsert bounds the rows of one INSERT into the outbox: a transaction that
// writes many events (the worker issuing a batch of bookings writes two each) pays one
// statement per this many instead of one per event.
const maxEventsPerInsert = 32

// qInsertEvents[n] inserts n events. It returns nothing: nobody reads a written
// event's seq (Event.Seq is filled where events are read), and RETURNING made SQLite
// collect the rows in a temporary table and database/sql walk a result set, a third of
// the statement's cost.
var qInsertEvents = func() (qs [maxEventsPerInsert + 1]stmt) {
	for n := 1; n <= maxEventsPerInsert; n++ {
		qs[n] = newStmt(insertEvents + ` VALUES ` + commaList("("+eventValues+")", n))
	}
	return qs
}()

// insertEvents and eventValues write an event: eventValues are eventArgs'
// placeholders, in a VALUES row (qInsertEvents) or a SELECT (createBookingSQL).
const (
	insertEvents = `INSERT INTO events (id, account_id, type, data, created_at)`
	eventValues  = `?, ?, ?, ?, ?`
)

var (
	qEvent          = newStmt(`SELECT ` + eventColumns + ` FROM events WHERE account_id = ? AND id = ?`)
	qEventPos       = newStmt(`SELECT ` + eventColumnsPos + ` FROM events WHERE account_id = ? AND id = ?`)
	qEventsAfter    = newStmt(`SELECT ` + eventColumns + ` FROM events WHERE seq > ? ORDER BY seq ` + limitArg)
	qEventsAfterPos = newStmt(`SELECT ` + eventColumnsPos + ` FROM events WHERE pos > ? ORDER BY pos ` + limitArg)

	// qPositionLock makes the transactions of positionEvents run one at a time, across
	// replicas too. Its keys are a constant of Skygate's and the events table's oid,
	// so that schemas sharing a database (tests) do not wait for each other.
	qPositionLock = newStmt(`SELECT pg_advisory_xact_lock(1397180225, 'events'::regclass::oid::int)`)
	// qPositionEvents gives the oldest inserted events without a position the next
	// positions, in the order of their seq.
	qPositionEvents = newStmt(`UPDATE events e SET pos = o.pos
		FROM (SELECT seq, nextval('events_pos_seq') AS pos
			FROM (SELECT seq FROM events WHERE pos IS NULL ORDER BY seq ` + limitArg + `) AS due) AS o
		WHERE e.seq = o.seq AND e.pos IS NULL`)
)

// positionBatch bounds the events one transaction of positionEvents positions.
const positionBatch = 1000

const eventNotFound = "event not found"

// scanEvent reads one row of eventColumns.
func scanEvent(row scanner) (*skygate.Event, error) {
	var (
		e    skygate.Event
		seq  sql.NullInt64 // an event without a position yet has none
		data []byte
	)
	if err := row.Scan(&seq, &e.ID, &e.AccountID, &e.Type, &data, timeCol{&e.CreatedAt}); err != nil {
		return nil, err
	}
	e.Seq, e.Data = seq.Int64, data
	return &e, nil
}

// insertEvents appends events to the outbox inside tx, with their webhook deliveries.
// It takes no lock: with SQLite's single writer, seq (assigned at insert) is already
// the order in which events become visible; with concurrent writers, an event's
// position in the feed is assigned after its commit (positionEvents), so writers need
// not commit one at a time.
func (s *Store) insertEvents(ctx context.Context, tx *sql.Tx, events []*skygate.Event) error {
	switch {
	case len(events) == 0:
		return nil
	case len(events) == 1 && s.d.WritableCTE:
		return s.insertEventAtOnce(ctx, tx, events[0])
	}
	for rest := events; len(rest) > 0; {
		chunk := rest[:min(len(rest), maxEventsPerInsert)]
		rest = rest[len(chunk):]
		if err := s.insertEventRows(ctx, tx, chunk); err != nil {
			return err
		}
	}
	return s.enqueueDeliveries(ctx, tx, events)
}

// insertEventAtOnce is insertEvents for one event on an engine with writable CTEs:
// the event, the lookup of its account's active subscription and the delivery to it in
// one statement (eventAtOnceSQL) instead of two or three. Many transactions write one
// event (an eSIM order, an eSIM's change, a booking's confirmation), and some hold a
// lock that others wait for meanwhile, such as an account's balance row.
func (s *Store) insertEventAtOnce(ctx context.Context, tx *sql.Tx, e *skygate.Event) error {
	args, err := s.eventAtOnceArgs(nil, e)
	if err != nil {
		return err
	}
	var delivered int
	if err := tx.QueryRowContext(ctx, s.eventAtOnce, args...).Scan(&delivered); err != nil {
		return fmt.Errorf("%s: insert event %s: %w", s.d.Name, e.ID, err)
	}
	if delivered > 0 {
		s.markDeliveries(tx)
	}
	return nil
}

// eventAtOnceArgs appends the arguments of eventCTEs for e to args: the event's (first:
// eventArgs makes e's time the stored one), its delivery's and its account.
func (s *Store) eventAtOnceArgs(args []any, e *skygate.Event) ([]any, error) {
	args = append(args, s.eventArgs(e)...)
	delivery, err := s.deliveryArgs(e)
	if err != nil {
		return nil, err
	}
	return append(append(args, delivery...), e.AccountID), nil
}

// eventCTEs returns the parts of a WITH that write one event (e) and its delivery (d),
// which joins the account's active subscription, locked as qActiveWebhookShare locks
// it, and writes nothing without one. Arguments (eventAtOnceArgs): eventValues',
// deliveryValues' (the subscription joined), then the account. With guard, the name
// of an earlier part, both select from it and write nothing when it is empty.
// PostgreSQL runs a WITH's INSERT whether or not the query reads it, and types the
// arguments of an INSERT … SELECT by the columns they fill, so they need no casts.
func eventCTEs(guard string) string {
	from, join := "", ""
	if guard != "" {
		from, join = ` FROM `+guard, guard+`, `
	}
	return `e AS (` + insertEvents + ` SELECT ` + eventValues + from + `),
	d AS (` + insertDelivery + ` SELECT ` + deliveryValues("w.id") + `
		FROM ` + join + `(` + activeWebhookShare + `) w` + onDeliveryConflict + ` RETURNING 1)`
}

// withEventThenCount ends the WITH parts q of a statement that writes at once: with
// withEvent it adds eventCTEs(guard), and it selects the rows of the part counted and
// the deliveries written (0 without an event).
func withEventThenCount(q, counted, guard string, withEvent bool) string {
	if !withEvent {
		return q + `
	SELECT (SELECT COUNT(*) FROM ` + counted + `), 0`
	}
	return q + `,
	` + eventCTEs(guard) + `
	SELECT (SELECT COUNT(*) FROM ` + counted + `), (SELECT COUNT(*) FROM d)`
}

// eventAtOnceSQL is the "?" form of insertEventAtOnce's statement. It returns the
// number of deliveries written.
func eventAtOnceSQL() string { return `WITH ` + eventCTEs("") + ` SELECT COUNT(*) FROM d` }

// insertEventRows inserts up to maxEventsPerInsert events with one statement.
func (s *Store) insertEventRows(ctx context.Context, tx *sql.Tx, events []*skygate.Event) error {
	args := make([]any, 0, 5*len(events))
	for _, e := range events {
		args = append(args, s.eventArgs(e)...)
	}
	res, err := tx.ExecContext(ctx, s.q(qInsertEvents[len(events)]), args...)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n != int64(len(events)) {
		return errors.Join(err, fmt.Errorf("%s: inserting %d events inserted %d", s.d.Name, len(events), n))
	}
	return nil
}

// eventArgs returns the arguments of eventValues for e, after making its time UTC and
// giving it empty data if it has none.
func (s *Store) eventArgs(e *skygate.Event) []any {
	e.CreatedAt = utc(e.CreatedAt)
	if e.Data == nil {
		e.Data = []byte("{}")
	}
	return []any{e.ID, e.AccountID, e.Type, string(e.Data), s.time(e.CreatedAt)}
}

// Event implements skygate.BookingStore.
func (s *Store) Event(ctx context.Context, accountID, eventID string) (*skygate.Event, error) {
	query := s.q(qEvent)
	if s.concurrentWriters() {
		query = s.q(qEventPos)
	}
	e, err := scanEvent(s.read.QueryRowContext(ctx, query, accountID, eventID))
	if err != nil {
		return nil, s.interpret(outcome{op: "get event", notFound: eventNotFound}, err)
	}
	return e, nil
}

// EventsAfter implements skygate.BookingStore. A limit of zero or less returns every
// later event.
func (s *Store) EventsAfter(ctx context.Context, afterSeq int64, limit int) ([]*skygate.Event, error) {
	query := s.q(qEventsAfter)
	if s.concurrentWriters() {
		if err := s.positionEvents(ctx); err != nil {
			return nil, s.interpret(outcome{op: "position events"}, err)
		}
		query = s.q(qEventsAfterPos)
	}
	n, _ := pageArgs(skygate.Page{Limit: limit})
	rows, err := s.read.QueryContext(ctx, query, afterSeq, n)
	if err != nil {
		return nil, s.interpret(outcome{op: "list events"}, err)
	}
	defer rows.Close()
	events := []*skygate.Event{}
	for rows.Next() {
		e, err := scanEvent(rows)
		if err != nil {
			return nil, s.interpret(outcome{op: "scan event"}, err)
		}
		events = append(events, e)
	}
	if err := rows.Err(); err != nil {
		return nil, s.interpret(outcome{op: "list events"}, err)
	}
	return events, nil
}

// positionEvents gives every committed event that has no position yet the next
// positions, positionBatch per transaction. The transactions hold qPositionLock, so
// they run one at a time, each after the last committed, and each takes positions
// above all earlier ones: positions become visible in increasing order, and a reader
// that read up to position p never finds a smaller one later. An event that commits
// while a transaction runs is not visible to it and gets a larger position from the
// next. A failed transaction leaves a gap in the positions, never a reuse.
func (s *Store) positionEvents(ctx context.Context) error {
	for {
		var n int64
		err := s.inTx(ctx, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, s.q(qPositionLock)); err != nil {
				return err
			}
			res, err := tx.ExecContext(ctx, s.q(qPositionEvents), positionBatch)
			if err != nil {
				return err
			}
			n, err = res.RowsAffected()
			return err
		})
		if err != nil || n < positionBatch {
			return err
		}
	}
}
