package sqlite

import (
	"context"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

var _ skygate.EventFeedStore = (*Store)(nil)

// An account's feed is read off events_account_seq (account_id, seq): the page, its
// head and the type filter all stay within the account's events.
var eventFeedSQL = sqlstore.EventFeedSQL{
	Page: `SELECT ` + eventColumns + ` FROM events
		WHERE account_id = ? AND seq > ? AND created_at >= ? ORDER BY seq LIMIT ?`,
	Typed: `SELECT ` + eventColumns + ` FROM events
		WHERE account_id = ? AND seq > ? AND created_at >= ? AND type IN (SELECT value FROM json_each(?))
		ORDER BY seq LIMIT ?`,
	Head: `SELECT COALESCE(max(seq), 0) FROM events WHERE account_id = ?`,
}

// The feed's changes are read off the rowid (seq): the events past a position in its
// order, bounded by the limit, and the newest position.
var eventFeedChangesSQL = sqlstore.EventFeedChangesSQL{
	Changes: `SELECT account_id, max(seq), count(*) FROM (
			SELECT account_id, seq FROM events WHERE seq > ? ORDER BY seq LIMIT ?
		) GROUP BY account_id`,
	Head: `SELECT COALESCE(max(seq), 0) FROM events`,
}

const (

	// The purge deletes the events created before the cutoff among the oldest by seq,
	// first their deliveries (whose attempts cascade), found through the account's
	// subscription and the (subscription_id, event_id) key: a delivery always belongs
	// to a subscription of its event's account. They read a bounded head of the seq
	// order (the rowid) rather than searching by created_at, which no index of events
	// covers (its indexes are the rowid, the unique id and events_account_seq;
	// migration 00007 dropped the one on created_at, which every insert paid for): seq
	// follows creation, so the oldest events are at the head. Both take the limit, then
	// the cutoff.
	purgeEventDeliveries = `DELETE FROM webhook_deliveries WHERE id IN (
		SELECT d.id FROM (SELECT id, account_id, created_at FROM events ORDER BY seq LIMIT ?) AS e
		JOIN webhook_subscriptions w ON w.account_id = e.account_id
		JOIN webhook_deliveries d ON d.subscription_id = w.id AND d.event_id = e.id
		WHERE e.created_at < ?)`
	purgeEvents = `DELETE FROM events WHERE seq IN (
		SELECT seq FROM (SELECT seq, created_at FROM events ORDER BY seq LIMIT ?) WHERE created_at < ?)`
)

// EventFeed implements skygate.EventFeedStore. The single writer commits one
// transaction at a time, so seq is the order in which events become visible and the
// snapshot's newest seq is a head no later commit can go below.
func (s *Store) EventFeed(ctx context.Context, q skygate.EventFeedQuery) (*skygate.EventFeedPage, error) {
	return sqlstore.EventFeed(ctx, s.db, eventFeedSQL, q)
}

// EventFeedChanges implements skygate.EventFeedStore. Events get their position at
// insert, so there is nothing to position first.
func (s *Store) EventFeedChanges(ctx context.Context, after int64, limit int) (*skygate.EventFeedChanges, error) {
	return sqlstore.EventFeedChanges(ctx, s.db, eventFeedChangesSQL, after, limit)
}

// PurgeEvents implements skygate.EventFeedStore in one transaction, so an event and
// its deliveries go together.
func (s *Store) PurgeEvents(ctx context.Context, before time.Time, limit int) (int, error) {
	var n int64
	cutoff, limit := before.UnixMicro(), max(limit, 1)
	err := s.inTx(ctx, func(tx *sqlstore.Tx) error {
		if _, err := tx.ExecContext(ctx, purgeEventDeliveries, limit, cutoff); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, purgeEvents, limit, cutoff)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, s.db.Interpret(sqlstore.Outcome{Op: "purge events"}, err)
	}
	return int(n), nil
}
