package postgres_test

import (
	"strings"
	"testing"

	"github.com/skygate/skygate/internal/postgres"
)

// TestEventFeedPlan checks that the events API reads an account's feed off
// events_account_pos in index order: a page or a long-poll's check must cost the
// account's new events, not a scan of every account's outbox or a sort.
func TestEventFeedPlan(t *testing.T) {
	t.Parallel()
	db := mustPlanDB(t)
	for query, args := range postgres.EventFeedStatements {
		plan := mustPlan(t, db, "EXPLAIN "+query, args...)
		if !strings.Contains(plan, " using events_account_pos ") && !strings.Contains(plan, " on events_account_pos ") ||
			strings.Contains(plan, "Sort ") {
			t.Errorf("plan of %s:\n%s", query, plan)
		}
	}
}

// TestEventPurgePlan checks that the retention purge reads the oldest events by their
// primary key and finds their deliveries by key, never by a scan of the outbox or of
// the delivery log.
func TestEventPurgePlan(t *testing.T) {
	t.Parallel()
	db := mustPlanDB(t)
	plan := mustPlan(t, db, "EXPLAIN "+postgres.EventPurgeQuery, "2026-01-01T00:00:00Z", 1000)
	if strings.Contains(plan, "Seq Scan") || !strings.Contains(plan, "events_pkey") {
		t.Errorf("plan of the purge:\n%s", plan)
	}
}
