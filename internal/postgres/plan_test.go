package postgres_test

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/skygate/skygate/internal/postgres"
	"github.com/skygate/skygate/internal/postgres/pgtest"
)

// TestClaimsUsePartialIndexes checks that the worker's claims are planned on the
// partial index made for them. The index only serves a query whose condition implies
// the index's, so a claim that took its status as a parameter would scan the table.
func TestClaimsUsePartialIndexes(t *testing.T) {
	t.Parallel()
	db := mustPlanDB(t)
	for index, query := range postgres.DueBookingClaims {
		plan := mustPlan(t, db, "EXPLAIN "+query, "2026-01-01T00:00:00Z", 1)
		if !strings.Contains(plan, " using "+index+" ") {
			t.Errorf("plan of the claim for %s:\n%s", index, plan)
		}
	}
}

// TestPassengerDataScansUsePartialIndexes checks that the worker's removal of personal
// data and its search for rows written in clear are planned on the partial index made
// for them: run every second, neither may scan the table.
func TestPassengerDataScansUsePartialIndexes(t *testing.T) {
	t.Parallel()
	db := mustPlanDB(t)
	for index, st := range postgres.PassengerDataScans {
		plan := mustPlan(t, db, "EXPLAIN "+st.Query, st.Args...)
		if !strings.Contains(plan, " using "+index+" ") {
			t.Errorf("plan of the statement for %s:\n%s", index, plan)
		}
	}
}

// TestWebhookBacklogPlan checks that the operator's backlog figure, read on every
// scrape of /metrics, reads the pending deliveries off the claim's partial index, never
// the whole delivery log.
func TestWebhookBacklogPlan(t *testing.T) {
	t.Parallel()
	db := mustPlanDB(t)
	plan := mustPlan(t, db, "EXPLAIN "+postgres.WebhookBacklogQuery, "2026-01-01T00:00:00Z")
	if !strings.Contains(plan, " using webhook_deliveries_due ") && !strings.Contains(plan, " on webhook_deliveries_due ") {
		t.Errorf("plan of the backlog:\n%s", plan)
	}
}

// TestWebhookClaimPlan checks that the dispatcher's claim reads the due deliveries off
// webhook_deliveries_due and checks the order of each object's deliveries on
// webhook_deliveries_ordering, so that a claim's cost does not grow with the delivery
// log of the objects it looks at.
func TestWebhookClaimPlan(t *testing.T) {
	t.Parallel()
	db := mustPlanDB(t)
	plan := mustPlan(t, db, "EXPLAIN "+postgres.WebhookClaimQuery, "2026-01-01T00:00:00Z", 32)
	for _, index := range []string{"webhook_deliveries_due", "webhook_deliveries_ordering"} {
		if !strings.Contains(plan, " using "+index+" ") && !strings.Contains(plan, " on "+index+" ") {
			t.Errorf("plan of the claim does not use %s:\n%s", index, plan)
		}
	}
}

// TestSuccessorUpdatesPlan checks that moving the due time of an object's later
// deliveries, done with every outcome of an ordered delivery, finds them on
// webhook_deliveries_ordering.
func TestSuccessorUpdatesPlan(t *testing.T) {
	t.Parallel()
	db := mustPlanDB(t)
	for _, query := range postgres.SuccessorUpdates {
		plan := mustPlan(t, db, "EXPLAIN "+query, "2026-01-01T00:00:00Z", "sub", "booking:b", 1)
		if !strings.Contains(plan, " using webhook_deliveries_ordering ") && !strings.Contains(plan, " on webhook_deliveries_ordering ") {
			t.Errorf("plan of %s:\n%s", query, plan)
		}
	}
}

// TestExpiringClaimPlan checks that the claim of the expiry warnings, run every few
// seconds on every replica, reads each of its two windows off the partial index
// esims_expiring: its literal conditions imply the index's.
func TestExpiringClaimPlan(t *testing.T) {
	t.Parallel()
	db := mustPlanDB(t)
	plan := mustPlan(t, db, "EXPLAIN "+postgres.ExpiringClaimQuery,
		"2026-01-01T00:00:00Z", "2026-01-04T00:00:00Z", "2026-01-02T00:00:00Z", []string{})
	if strings.Count(plan, " using esims_expiring ") != 2 {
		t.Errorf("plan of the claim:\n%s", plan)
	}
}

// mustPlanDB returns one session on a migrated schema that avoids sequential scans
// wherever an index can serve.
func mustPlanDB(tb testing.TB) *sql.DB {
	tb.Helper()
	dsn := pgtest.MustDSN(tb)
	pgtest.MustOpenAt(tb, dsn) // the migrated schema
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		tb.Fatalf("open: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1) // the SET below holds for this one session
	if _, err := db.ExecContext(tb.Context(), "SET enable_seqscan = off"); err != nil {
		tb.Fatal(err)
	}
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
