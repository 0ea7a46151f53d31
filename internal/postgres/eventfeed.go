package postgres

import (
	"context"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

var _ skygate.EventFeedStore = (*Store)(nil)

// An account's feed is read off events_account_pos (account_id, pos), partial on pos
// IS NOT NULL: the page, its head and the type filter all stay within the account's
// positioned events.
var eventFeedSQL = sqlstore.EventFeedSQL{
	Page: `SELECT ` + eventColumns + ` FROM events
		WHERE account_id = $1 AND pos > $2 AND created_at >= $3 ORDER BY pos LIMIT $4`,
	Typed: `SELECT ` + eventColumns + ` FROM events
		WHERE account_id = $1 AND pos > $2 AND created_at >= $3 AND type = ANY($4)
		ORDER BY pos LIMIT $5`,
	Head: `SELECT COALESCE(max(pos), 0) FROM events WHERE account_id = $1 AND pos IS NOT NULL`,
}

// The feed's changes are read off events_pos (pos), partial on pos IS NOT NULL: the
// events past a position in its order, bounded by the limit, and the newest position.
var eventFeedChangesSQL = sqlstore.EventFeedChangesSQL{
	Changes: `SELECT account_id, max(pos), count(*) FROM (
			SELECT account_id, pos FROM events WHERE pos > $1 ORDER BY pos LIMIT $2
		) AS new GROUP BY account_id`,
	Head: `SELECT COALESCE(max(pos), 0) FROM events WHERE pos IS NOT NULL`,
}

const (

	// purgeEvents deletes the events created before $1 among the $2 oldest by seq,
	// with their deliveries (whose attempts cascade). The deliveries are found through
	// the account's subscription and the (subscription_id, event_id) key, so no index
	// on event_id alone is needed; a delivery always belongs to a subscription of its
	// event's account. It reads a bounded head of the seq order off events_pkey rather
	// than searching by created_at, which no index of events covers (its indexes are
	// events_pkey, the unique id, events_pos, events_unpositioned and
	// events_account_pos; migration 00007 dropped the one on created_at, which every
	// insert paid for): seq follows creation, so the oldest events are at the head.
	purgeEvents = `WITH old AS (
			SELECT seq, id, account_id FROM (
				SELECT seq, id, account_id, created_at FROM events ORDER BY seq LIMIT $2
			) AS head WHERE created_at < $1
		),
		d AS (
			DELETE FROM webhook_deliveries wd USING old, webhook_subscriptions w
			WHERE w.account_id = old.account_id AND wd.subscription_id = w.id AND wd.event_id = old.id
		),
		e AS (
			DELETE FROM events USING old WHERE events.seq = old.seq RETURNING 1
		)
		SELECT count(*) FROM e`
)

// EventFeed implements skygate.EventFeedStore.
func (s *Store) EventFeed(ctx context.Context, q skygate.EventFeedQuery) (*skygate.EventFeedPage, error) {
	if _, err := s.positionEvents(ctx); err != nil {
		return nil, s.db.Interpret(sqlstore.Outcome{Op: "position events"}, err)
	}
	return sqlstore.EventFeed(ctx, s.db, eventFeedSQL, q)
}

// EventFeedChanges implements skygate.EventFeedStore.
func (s *Store) EventFeedChanges(ctx context.Context, after int64, limit int) (*skygate.EventFeedChanges, error) {
	if _, err := s.positionEvents(ctx); err != nil {
		return nil, s.db.Interpret(sqlstore.Outcome{Op: "position events"}, err)
	}
	return sqlstore.EventFeedChanges(ctx, s.db, eventFeedChangesSQL, after, limit)
}

// PurgeEvents implements skygate.EventFeedStore in one statement, so an event and its
// deliveries go together.
func (s *Store) PurgeEvents(ctx context.Context, before time.Time, limit int) (int, error) {
	var n int
	if err := s.pool.QueryRowContext(ctx, purgeEvents, sqlstore.UTC(before), max(limit, 1)).Scan(&n); err != nil {
		return 0, s.db.Interpret(sqlstore.Outcome{Op: "purge events"}, err)
	}
	return n, nil
}
