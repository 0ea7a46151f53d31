package postgres_test

import (
	"database/sql"
	"slices"
	"testing"

	"github.com/skygate/skygate/internal/postgres"
	"github.com/skygate/skygate/internal/postgres/pgtest"
	"github.com/skygate/skygate/internal/seal/sealtest"
	"github.com/skygate/skygate/internal/storetest"
)

// TestPoolKeepsItsConnections takes every connection of a store's pool at once, gives
// them back and takes them again: the second burst must find the same backends. A
// database/sql pool closes a connection given back while MaxIdleConns are idle, so a
// pool that may open more connections than it keeps idle reconnects whenever its load
// falls and rises again, and each request that meets a new connection waits for a new
// backend, its statements parsed and its catalog caches loaded again.
func TestPoolKeepsItsConnections(t *testing.T) {
	t.Parallel()
	s, err := postgres.Open(t.Context(), pgtest.MustDSN(t), 0, sealtest.New(t), nil)
	storetest.MustNoError(t, err, "Open")
	t.Cleanup(func() { s.Close() })
	db := s.Pools()["postgres"]
	if db == nil {
		t.Fatalf("no pool named postgres in %v", s.Pools())
	}

	first := mustBurst(t, db)
	if st := db.Stats(); st.Idle != len(first) || st.MaxIdleClosed != 0 {
		t.Fatalf("after a burst of %d: %d idle, %d closed for the idle limit; want all idle, none closed",
			len(first), st.Idle, st.MaxIdleClosed)
	}
	if second := mustBurst(t, db); !slices.Equal(first, second) {
		t.Fatalf("the second burst ran on other backends: %v, then %v", first, second)
	}
}

// mustBurst holds every connection the pool may open at once and returns their
// backends' process ids, sorted.
func mustBurst(t *testing.T, db *sql.DB) []int {
	t.Helper()
	n := db.Stats().MaxOpenConnections
	if n <= 0 {
		t.Fatal("the pool has no limit on open connections")
	}
	conns := make([]*sql.Conn, 0, n)
	pids := make([]int, 0, n)
	for range n {
		c, err := db.Conn(t.Context())
		storetest.MustNoError(t, err, "Conn")
		var pid int
		storetest.MustNoError(t, c.QueryRowContext(t.Context(), "SELECT pg_backend_pid()").Scan(&pid), "pg_backend_pid")
		conns = append(conns, c)
		pids = append(pids, pid)
	}
	for _, c := range conns {
		storetest.MustNoError(t, c.Close(), "release")
	}
	slices.Sort(pids)
	return pids
}
