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
