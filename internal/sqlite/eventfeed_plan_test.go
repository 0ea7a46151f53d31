package sqlite_test

import (
	"strings"
	"testing"

	"github.com/skygate/skygate/internal/sqlite"
	"github.com/skygate/skygate/internal/sqlite/sqlitetest"
)

// TestEventFeedPlan checks that the events API reads an account's feed off
// events_account_seq in index order: a page or a long-poll's check must cost the
// account's new events, not a scan of every account's outbox or a sort.
func TestEventFeedPlan(t *testing.T) {
	t.Parallel()
	s := sqlitetest.MustOpen(t)
	db := mustOpen(t, "file:"+s.Path()+"?mode=ro")
	for query, args := range sqlite.EventFeedStatements {
		plan := mustPlan(t, db, "EXPLAIN QUERY PLAN "+query, args...)
		if !strings.Contains(plan, "USING COVERING INDEX events_account_seq") && !strings.Contains(plan, "USING INDEX events_account_seq") ||
			strings.Contains(plan, "TEMP B-TREE") {
			t.Errorf("plan of %s:\n%s", query, plan)
		}
	}
}

// TestEventPurgePlan checks that the retention purge reads the oldest events by their
// primary key and finds their deliveries by key, never by a scan of the delivery log.
func TestEventPurgePlan(t *testing.T) {
	t.Parallel()
	s := sqlitetest.MustOpen(t)
	db := mustOpen(t, "file:"+s.Path()+"?mode=ro")
	for query, args := range sqlite.EventPurgeStatements {
		plan := mustPlan(t, db, "EXPLAIN QUERY PLAN "+query, args...)
		if strings.Contains(plan, "SCAN d") || strings.Contains(plan, "SCAN webhook_deliveries") || strings.Contains(plan, "TEMP B-TREE") {
			t.Errorf("plan of %s:\n%s", query, plan)
		}
	}
}
