package sqlstore_test

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/skygate/skygate/internal/sqlstore"
	"github.com/skygate/skygate/internal/storetest"
)

// TestClaimsUsePartialIndexes checks that each engine plans the worker's claims on the
// partial index made for them. The index only serves a query whose condition implies
// the index's, so a claim that took its status as a parameter would scan the table.
func TestClaimsUsePartialIndexes(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		s := storetest.MustSQLite(t)
		db := mustOpen(t, "sqlite", "file:"+s.Path()+"?mode=ro")
		for index, query := range sqlstore.DueBookingClaims {
			plan := mustPlan(t, db, "EXPLAIN QUERY PLAN "+query, 0, 1)
			if !strings.Contains(plan, "USING INDEX "+index) {
				t.Errorf("plan of the claim for %s:\n%s", index, plan)
			}
		}
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		dsn := storetest.MustPostgresDSN(t)
		storetest.MustPostgresAt(t, dsn) // the migrated schema
		db := mustOpen(t, "pgx", dsn)
		db.SetMaxOpenConns(1) // the SET below holds for this one session
		if _, err := db.ExecContext(t.Context(), "SET enable_seqscan = off"); err != nil {
			t.Fatal(err)
		}
		for index, query := range sqlstore.DueBookingClaims {
			plan := mustPlan(t, db, "EXPLAIN "+sqlstore.Rebind(sqlstore.Dollar, query), "2026-01-01T00:00:00Z", 1)
			if !strings.Contains(plan, " using "+index+" ") {
				t.Errorf("plan of the claim for %s:\n%s", index, plan)
			}
		}
	})
}

// TestPoolAllocationPlan checks that SQLite takes an order's profiles in index order
// with its LIMIT behind a CAST (limitArg): the planner does not see the count, and
// must still read the oldest Available profiles off esim_pool_available without
// sorting the pool, then mark them by their primary key, not by a scan of the
// account's pool.
func TestPoolAllocationPlan(t *testing.T) {
	t.Parallel()
	s := storetest.MustSQLite(t)
	db := mustOpen(t, "sqlite", "file:"+s.Path()+"?mode=ro")
	plan := mustPlan(t, db, "EXPLAIN QUERY PLAN "+sqlstore.PoolAllocation, "acc", 1, "order")
	if !strings.Contains(plan, "INDEX esim_pool_available (account_id=? AND status=?)") ||
		!strings.Contains(plan, "INDEX sqlite_autoindex_esim_pool_profiles_1 (iccid=?)") ||
		strings.Contains(plan, "TEMP B-TREE") {
		t.Errorf("plan of the pool allocation:\n%s", plan)
	}
}

func mustOpen(tb testing.TB, driver, dsn string) *sql.DB {
	tb.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		tb.Fatalf("open %s: %v", driver, err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// mustPlan returns the rows of an EXPLAIN statement, one line each, with every column
// joined by spaces.
func mustPlan(tb testing.TB, db *sql.DB, query string, args ...any) string {
	tb.Helper()
	rows, err := db.QueryContext(tb.Context(), query, args...)
	if err != nil {
		tb.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		tb.Fatal(err)
	}
	var b strings.Builder
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			tb.Fatal(err)
		}
		for _, v := range vals {
			fmt.Fprintf(&b, "%v ", v)
		}
		b.WriteString("\n")
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return b.String()
}
