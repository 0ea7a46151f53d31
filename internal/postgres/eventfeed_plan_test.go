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

// TestEventFeedChangesPlan checks that the head poll reads the events past its last
// head off events_pos in index order, never by a scan of the outbox or a sort of it,
// on an outbox of many accounts' events (an empty one's plan says little).
func TestEventFeedChangesPlan(t *testing.T) {
	t.Parallel()
	db := mustPlanDB(t)
	for _, stmt := range []string{
		`INSERT INTO accounts (id, name, status, created_at, updated_at)
			SELECT 'plan-' || a, 'Plan ' || a, 'active', now(), now() FROM generate_series(1, 50) AS a`,
		`INSERT INTO events (id, account_id, type, data, created_at, pos)
			SELECT gen_random_uuid()::text, 'plan-' || (1 + n % 50), 'webhook.test', '{}', now(), n
			FROM generate_series(1, 20000) AS n`,
		`ANALYZE events`,
	} {
		if _, err := db.ExecContext(t.Context(), stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	plan := mustPlan(t, db, "EXPLAIN "+postgres.EventFeedChangesQuery, 19000, 1000)
	if strings.Contains(plan, "Seq Scan") || !strings.Contains(plan, " using events_pos ") || strings.Contains(plan, "Sort Key: events.pos") {
		t.Errorf("plan of the changes:\n%s", plan)
	}
}
