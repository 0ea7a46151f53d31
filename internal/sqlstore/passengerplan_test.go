package sqlstore_test

import (
	"strings"
	"testing"

	"github.com/skygate/skygate/internal/sqlstore"
	"github.com/skygate/skygate/internal/storetest"
)

// TestPassengerDataScansUsePartialIndexes checks that each engine plans the worker's
// removal of personal data and its search for rows written in clear on the partial
// index made for them: run every second, neither may scan the table.
func TestPassengerDataScansUsePartialIndexes(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		s := storetest.MustSQLite(t)
		db := mustOpen(t, "sqlite", "file:"+s.Path()+"?mode=ro")
		for index, st := range sqlstore.PassengerDataScans {
			args := st.Args
			if st.WithTime {
				args = append([]any{0}, args...)
			}
			plan := mustPlan(t, db, "EXPLAIN QUERY PLAN "+st.Query, args...)
			if !strings.Contains(plan, "USING INDEX "+index) {
				t.Errorf("plan of the statement for %s:\n%s", index, plan)
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
		for index, st := range sqlstore.PassengerDataScans {
			args := st.Args
			if st.WithTime {
				args = append([]any{"2026-01-01T00:00:00Z"}, args...)
			}
			plan := mustPlan(t, db, "EXPLAIN "+sqlstore.Rebind(sqlstore.Dollar, st.Query), args...)
			if !strings.Contains(plan, " using "+index+" ") {
				t.Errorf("plan of the statement for %s:\n%s", index, plan)
			}
		}
	})
}
