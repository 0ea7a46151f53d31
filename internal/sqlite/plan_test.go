package sqlite_test

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/skygate/skygate/internal/sqlite"
	"github.com/skygate/skygate/internal/sqlite/sqlitetest"
)

// TestClaimsUsePartialIndexes checks that the worker's claims are planned on the
// partial index made for them. The index only serves a query whose condition implies
// the index's, so a claim that took its status as a parameter would scan the table.
func TestClaimsUsePartialIndexes(t *testing.T) {
	t.Parallel()
	s := sqlitetest.MustOpen(t)
	db := mustOpen(t, "file:"+s.Path()+"?mode=ro")
	for index, query := range sqlite.DueBookingClaims {
		plan := mustPlan(t, db, "EXPLAIN QUERY PLAN "+query, 0, 1)
		if !strings.Contains(plan, "USING INDEX "+index) {
			t.Errorf("plan of the claim for %s:\n%s", index, plan)
		}
	}
}

// TestPoolAllocationPlan checks that an order's profiles are read in index order off
// esim_pool_available, without sorting the pool, then marked by their primary key,
// not by a scan of the account's pool.
func TestPoolAllocationPlan(t *testing.T) {
	t.Parallel()
	s := sqlitetest.MustOpen(t)
	db := mustOpen(t, "file:"+s.Path()+"?mode=ro")
	plan := mustPlan(t, db, "EXPLAIN QUERY PLAN "+sqlite.PoolAllocation, "order", "acc", 1)
	if !strings.Contains(plan, "INDEX esim_pool_available (account_id=? AND status=?)") ||
		!strings.Contains(plan, "INDEX sqlite_autoindex_esim_pool_profiles_1 (iccid=?)") ||
		strings.Contains(plan, "TEMP B-TREE") {
		t.Errorf("plan of the pool allocation:\n%s", plan)
	}
}

// TestPassengerDataScansUsePartialIndexes checks that the worker's removal of personal
// data and its search for rows written in clear are planned on the partial index made
// for them: run every second, neither may scan the table.
func TestPassengerDataScansUsePartialIndexes(t *testing.T) {
	t.Parallel()
	s := sqlitetest.MustOpen(t)
	db := mustOpen(t, "file:"+s.Path()+"?mode=ro")
	for index, st := range sqlite.PassengerDataScans {
		plan := mustPlan(t, db, "EXPLAIN QUERY PLAN "+st.Query, st.Args...)
		if !strings.Contains(plan, "USING INDEX "+index) {
			t.Errorf("plan of the statement for %s:\n%s", index, plan)
		}
	}
}

// TestWebhookBacklogPlan checks that the operator's backlog figure, read on every
// scrape of /metrics, reads the pending deliveries off the claim's partial index and
// each one's subscription by its primary key, never the whole delivery log.
func TestWebhookBacklogPlan(t *testing.T) {
	t.Parallel()
	s := sqlitetest.MustOpen(t)
	db := mustOpen(t, "file:"+s.Path()+"?mode=ro")
	plan := mustPlan(t, db, "EXPLAIN QUERY PLAN "+sqlite.WebhookBacklogQuery, 0)
	if !strings.Contains(plan, "SCAN d USING INDEX webhook_deliveries_due") || !strings.Contains(plan, "SEARCH s USING") {
		t.Errorf("plan of the backlog:\n%s", plan)
	}
}

// TestWebhookClaimPlan checks that the dispatcher's claim reads the due deliveries off
// webhook_deliveries_due and checks the order of each object's deliveries on
// webhook_deliveries_ordering, never the whole delivery log.
func TestWebhookClaimPlan(t *testing.T) {
	t.Parallel()
	s := sqlitetest.MustOpen(t)
	db := mustOpen(t, "file:"+s.Path()+"?mode=ro")
	plan := mustPlan(t, db, "EXPLAIN QUERY PLAN "+sqlite.WebhookClaimQuery, 0, 32)
	for _, want := range []string{"d USING INDEX webhook_deliveries_due", "SEARCH p USING INDEX webhook_deliveries_ordering"} {
		if !strings.Contains(plan, want) {
			t.Errorf("plan of the claim lacks %q:\n%s", want, plan)
		}
	}
}

// TestSuccessorUpdatesPlan checks that moving the due time of an object's later
// deliveries, done with every outcome of an ordered delivery, finds them on
// webhook_deliveries_ordering.
func TestSuccessorUpdatesPlan(t *testing.T) {
	t.Parallel()
	s := sqlitetest.MustOpen(t)
	db := mustOpen(t, "file:"+s.Path())
	for _, query := range sqlite.SuccessorUpdates {
		plan := mustPlan(t, db, "EXPLAIN QUERY PLAN "+query, 0, "sub", "booking:b", 1)
		if !strings.Contains(plan, "USING INDEX webhook_deliveries_ordering") {
			t.Errorf("plan of %s:\n%s", query, plan)
		}
	}
}

// TestExpiringClaimPlan checks that the claim of the expiry warnings, run every few
// seconds, reads each of its two windows off the partial index esims_expiring in the
// index's order and finds the claimed eSIM by its primary key: neither scans the table
// nor sorts the warned eSIMs.
func TestExpiringClaimPlan(t *testing.T) {
	t.Parallel()
	s := sqlitetest.MustOpen(t)
	db := mustOpen(t, "file:"+s.Path()+"?mode=ro")
	plan := mustPlan(t, db, "EXPLAIN QUERY PLAN "+sqlite.ExpiringClaimQuery, 0, 3, 1, "[]")
	if strings.Count(plan, "USING INDEX esims_expiring") != 2 || strings.Contains(plan, "SCAN esims") ||
		strings.Contains(plan, "TEMP B-TREE") {
		t.Errorf("plan of the claim:\n%s", plan)
	}
}

func mustOpen(tb testing.TB, dsn string) *sql.DB {
	tb.Helper()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		tb.Fatalf("open: %v", err)
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
