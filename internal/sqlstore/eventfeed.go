package sqlstore

import (
	"context"
	"database/sql"

	"github.com/skygate/skygate"
)

// The flows of the events API's feed (skygate.EventFeedStore).

// EventFeedSQL are an engine's statements of an account's feed. Page takes the
// account, the position to read after, the earliest creation time and the limit; Typed
// takes the account, the position, the time, the types (in DB.Strings form) and the
// limit; both select the columns
// ScanEvent reads in feed order. Head takes the account and selects the position of
// its newest event, or 0.
type EventFeedSQL struct {
	Page, Typed, Head string
}

// EventFeed is skygate.EventFeedStore's EventFeed once the engine has positioned the
// committed events: the page and the account's head come from one snapshot, so an
// event below the head is either on the page or filtered out, never still to come.
func EventFeed(ctx context.Context, db *DB, st EventFeedSQL, q skygate.EventFeedQuery) (*skygate.EventFeedPage, error) {
	page := &skygate.EventFeedPage{Next: q.After}
	err := inReadTx(ctx, db, func(tx *sql.Tx) error {
		var err error
		if len(q.Types) == 0 {
			page.Events, err = QueryAll(ctx, tx, ScanEvent, st.Page, q.AccountID, q.After, db.Time(q.Since), q.Limit)
		} else {
			var types any
			if types, err = db.Strings(q.Types); err != nil {
				return err
			}
			page.Events, err = QueryAll(ctx, tx, ScanEvent, st.Typed, q.AccountID, q.After, db.Time(q.Since), types, q.Limit)
		}
		if err != nil {
			return err
		}
		if n := len(page.Events); n > 0 && n >= q.Limit {
			page.Next = page.Events[n-1].Seq
			return nil
		}
		var head int64
		if err := tx.QueryRowContext(ctx, st.Head, q.AccountID).Scan(&head); err != nil {
			return err
		}
		page.Next = max(page.Next, head)
		return nil
	})
	if err != nil {
		return nil, db.Interpret(Outcome{Op: "read event feed"}, err)
	}
	return page, nil
}

// EventFeedChangesSQL are an engine's statements of the feed's changes. Changes takes a
// position and a limit and selects, among the limit events of the lowest positions
// past it, each account's id, its newest position and its number of events; Head
// selects the newest position of every account, or 0.
type EventFeedChangesSQL struct {
	Changes, Head string
}

// EventFeedChanges is skygate.EventFeedStore's EventFeedChanges once the engine has
// positioned the committed events: the changes and, when they are truncated, the head
// come from one snapshot, so the next call from Head misses no event.
func EventFeedChanges(ctx context.Context, db *DB, st EventFeedChangesSQL, after int64, limit int) (*skygate.EventFeedChanges, error) {
	limit = max(limit, 1)
	ch := &skygate.EventFeedChanges{Head: after, AccountIDs: []string{}}
	err := inReadTx(ctx, db, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, st.Changes, after, limit)
		if err != nil {
			return err
		}
		defer func() { _ = rows.Close() }() // rows.Err below reports a failed read
		seen := 0
		for rows.Next() {
			var (
				id     string
				newest int64
				events int
			)
			if err := rows.Scan(&id, &newest, &events); err != nil {
				return err
			}
			ch.AccountIDs = append(ch.AccountIDs, id)
			ch.Head = max(ch.Head, newest)
			seen += events
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if seen < limit {
			return nil
		}
		ch.AccountIDs, ch.Truncated = []string{}, true
		var head int64
		if err := tx.QueryRowContext(ctx, st.Head).Scan(&head); err != nil {
			return err
		}
		ch.Head = max(ch.Head, head)
		return nil
	})
	if err != nil {
		return nil, db.Interpret(Outcome{Op: "read event feed changes"}, err)
	}
	return ch, nil
}
