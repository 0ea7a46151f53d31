package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/skygate/skygate"
)

const eventColumns = `seq, id, account_id, type, data, created_at`

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
		qs[n] = newStmt(`INSERT INTO events (id, account_id, type, data, created_at) VALUES ` +
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?), ", n), ", "))
	}
	return qs
}()

var (
	qEvent       = newStmt(`SELECT ` + eventColumns + ` FROM events WHERE account_id = ? AND id = ?`)
	qEventsAfter = newStmt(`SELECT ` + eventColumns + ` FROM events
		WHERE seq > ? ORDER BY seq ` + limitArg)
)

const eventNotFound = "event not found"

// scanEvent reads one row of eventColumns.
func scanEvent(row scanner) (*skygate.Event, error) {
	var (
		e    skygate.Event
		data []byte
	)
	if err := row.Scan(&e.Seq, &e.ID, &e.AccountID, &e.Type, &data, timeCol{&e.CreatedAt}); err != nil {
		return nil, err
	}
	e.Data = data
	return &e, nil
}

// insertEvents appends events to the outbox inside tx and sets their Seq. It first
// takes the events table lock (PostgreSQL; SQLite's single writer needs none) and
// holds it to the commit, so sequence numbers become visible in increasing order and
// a reader that remembers the last Seq it saw never skips an event that commits late.
// The lock is taken last in every transaction that writes events, after its row locks,
// so it cannot deadlock with them; it only serialises the commits of such transactions.
func (s *Store) insertEvents(ctx context.Context, tx *sql.Tx, events []*skygate.Event) error {
	if len(events) == 0 {
		return nil
	}
	if err := s.lockTable(ctx, tx, "events"); err != nil {
		return err
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

// insertEventRows inserts up to maxEventsPerInsert events with one statement.
func (s *Store) insertEventRows(ctx context.Context, tx *sql.Tx, events []*skygate.Event) error {
	args := make([]any, 0, 5*len(events))
	for _, e := range events {
		e.CreatedAt = utc(e.CreatedAt)
		if e.Data == nil {
			e.Data = []byte("{}")
		}
		args = append(args, e.ID, e.AccountID, e.Type, string(e.Data), s.time(e.CreatedAt))
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

// Event implements skygate.BookingStore.
func (s *Store) Event(ctx context.Context, accountID, eventID string) (*skygate.Event, error) {
	e, err := scanEvent(s.read.QueryRowContext(ctx, s.q(qEvent), accountID, eventID))
	if err != nil {
		return nil, s.interpret(outcome{op: "get event", notFound: eventNotFound}, err)
	}
	return e, nil
}

// EventsAfter implements skygate.BookingStore. A limit of zero or less returns every
// later event.
func (s *Store) EventsAfter(ctx context.Context, afterSeq int64, limit int) ([]*skygate.Event, error) {
	n, _ := pageArgs(skygate.Page{Limit: limit})
	rows, err := s.read.QueryContext(ctx, s.q(qEventsAfter), afterSeq, n)
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
