package postgres_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/postgres"
	"github.com/skygate/skygate/internal/postgres/pgtest"
	"github.com/skygate/skygate/internal/storetest"
)

// unpositioned counts the committed events without a feed position.
func unpositioned(tb testing.TB, db *sql.DB) int {
	tb.Helper()
	var n int
	err := db.QueryRowContext(tb.Context(), `SELECT count(*) FROM events WHERE pos IS NULL`).Scan(&n)
	storetest.MustNoError(tb, err, "count unpositioned events")
	return n
}

// TestEventPositionBounded: a read of the feed positions one batch of a backlog, not
// all of it; PositionEvents (the background loop) positions the rest; and once
// nothing lacks a position, reads take no advisory lock, so they go on while another
// session holds it.
func TestEventPositionBounded(t *testing.T) {
	t.Parallel()
	dsn := pgtest.MustDSN(t)
	s := pgtest.MustOpenAt(t, dsn)
	acc := storetest.MustCreateAccount(t, s)
	db, err := sql.Open("pgx", dsn)
	storetest.MustNoError(t, err, "open")
	t.Cleanup(func() { db.Close() })

	const extra = 5
	_, err = db.ExecContext(t.Context(), `INSERT INTO events (id, account_id, type, data, created_at)
		SELECT gen_random_uuid()::text, $1, 'webhook.test', '{}', now() FROM generate_series(1, $2)`,
		acc.ID, postgres.PositionBatch+extra)
	storetest.MustNoError(t, err, "insert a backlog")

	_, err = s.EventFeed(t.Context(), skygate.EventFeedQuery{AccountID: acc.ID, Limit: 10})
	storetest.MustNoError(t, err, "EventFeed")
	if n := unpositioned(t, db); n != extra {
		t.Fatalf("%d events unpositioned after one read, want %d (one batch positioned)", n, extra)
	}
	n, err := s.PositionEvents(t.Context())
	storetest.MustNoError(t, err, "PositionEvents")
	if n != extra || unpositioned(t, db) != 0 {
		t.Fatalf("PositionEvents positioned %d, want the %d left", n, extra)
	}

	holder, err := db.BeginTx(t.Context(), nil)
	storetest.MustNoError(t, err, "begin")
	defer holder.Rollback()
	_, err = holder.ExecContext(t.Context(), postgres.LockPositions)
	storetest.MustNoError(t, err, "hold the positions' lock")
	// The deadline only turns a read blocked behind the lock into a failure instead of
	// a hung test.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	p, err := s.EventFeed(ctx, skygate.EventFeedQuery{AccountID: acc.ID, Limit: 10})
	storetest.MustNoError(t, err, "EventFeed beside the lock's holder")
	if len(p.Events) != 10 {
		t.Fatalf("%d events, want 10", len(p.Events))
	}
	_, err = s.EventFeedChanges(ctx, 0, 10)
	storetest.MustNoError(t, err, "EventFeedChanges beside the lock's holder")
	if n, err := s.PositionEvents(ctx); err != nil || n != 0 {
		t.Fatalf("PositionEvents with nothing to position: %d, %v", n, err)
	}
}
