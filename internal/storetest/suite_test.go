package storetest

import (
	"testing"

	"github.com/skygate/skygate"
)

// TestSQLite runs the suite on SQLite stores.
func TestSQLite(t *testing.T) {
	t.Parallel()
	RunTests(t, func(t *testing.T) skygate.Store { return MustSQLite(t) })
}

// TestPostgres runs the suite on PostgreSQL stores; each case skips when
// SKYGATE_TEST_DATABASE_URL is unset.
func TestPostgres(t *testing.T) {
	t.Parallel()
	RunTests(t, func(t *testing.T) skygate.Store { return MustPostgres(t) })
}
