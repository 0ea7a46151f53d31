package sqlstore

import (
	"context"
	"database/sql"

	"github.com/skygate/skygate"
)

const eventColumns = `seq, id, account_id, type, data, created_at`

var (
	qInsertEvent = newStmt(`INSERT INTO events (id, account_id, type, data, created_at)
		VALUES (?, ?, ?, ?, ?) RETURNING seq`)
	qEvent       = newStmt(`SELECT ` + eventColumns + ` FROM events WHERE account_id = ? AND id = ?`)
	qEventsAfter = newStmt(`SELECT ` + eventColumns + ` FROM events
		WHERE seq > ? ORDER BY seq LIMIT ?`)
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
	s.markEvents(tx)
	for _, e := range events {
		e.CreatedAt = utc(e.CreatedAt)
		if e.Data == nil {
			e.Data = []byte("{}")
		}
		err := tx.QueryRowContext(ctx, s.q(qInsertEvent),
			e.ID, e.AccountID, e.Type, string(e.Data), s.time(e.CreatedAt)).Scan(&e.Seq)
		if err != nil {
			return err
		}
	}
	return s.enqueueDeliveries(ctx, tx, events)
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
