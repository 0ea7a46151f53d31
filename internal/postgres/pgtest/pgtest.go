package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver for schema setup

	"github.com/skygate/skygate/internal/postgres"
	"github.com/skygate/skygate/internal/seal/sealtest"
)

// EnvDSN names the environment variable with the DSN of a PostgreSQL database that
// tests may create schemas in. When it is unset, PostgreSQL tests are skipped.
const EnvDSN = "SKYGATE_TEST_DATABASE_URL"

// MustOpen returns a migrated store in a new schema, or skips the test when
// SKYGATE_TEST_DATABASE_URL is unset. The schema is dropped when the test ends.
func MustOpen(tb testing.TB) *postgres.Store {
	tb.Helper()
	return MustOpenAt(tb, MustDSN(tb))
}

// MustOpenAt returns a migrated store on dsn (from MustDSN), for tests that also open
// their own connections to the store's schema.
func MustOpenAt(tb testing.TB, dsn string) *postgres.Store {
	tb.Helper()
	s, err := postgres.Open(tb.Context(), dsn, 0, sealtest.New(tb), nil)
	if err != nil {
		tb.Fatalf("postgres.Open: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("close the store: %v", err)
		}
	})
	if err := s.Migrate(tb.Context()); err != nil {
		tb.Fatalf("postgres Migrate: %v", err)
	}
	return s
}

// MustDSN creates an empty schema with a random name and returns a DSN whose
// search_path selects it, or skips the test when SKYGATE_TEST_DATABASE_URL is unset.
// The schema is dropped when the test ends, after cleanups registered later (such as
// closing a store on it) have run.
func MustDSN(tb testing.TB) string {
	tb.Helper()
	dsn := os.Getenv(EnvDSN)
	if dsn == "" {
		tb.Skipf("%s is not set; set it to a PostgreSQL DSN (e.g. postgres://root@127.0.0.1:5432/test?sslmode=disable) to run PostgreSQL tests", EnvDSN)
	}
	schema := "skygate_test_" + strings.ToLower(rand.Text())
	// The name is ours and made of [a-z0-9_], but quote it anyway.
	quoted := `"` + schema + `"`
	mustExecAdmin(tb, dsn, "CREATE SCHEMA "+quoted)
	tb.Cleanup(func() { mustExecAdmin(tb, dsn, "DROP SCHEMA "+quoted+" CASCADE") })
	return withSearchPath(tb, dsn, schema)
}

// mustExecAdmin runs one statement on its own short-lived connection. It does not use
// the test's context, which is already cancelled when cleanups run.
func mustExecAdmin(tb testing.TB, dsn, query string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		tb.Fatalf("open %s: %v", EnvDSN, err)
	}
	defer func() { _ = db.Close() }() // a connection for one statement, whose error is checked
	if _, err := db.ExecContext(ctx, query); err != nil {
		tb.Fatalf("%s: %v", query, err)
	}
}

// withSearchPath adds the search_path runtime parameter to a URL or key=value DSN.
func withSearchPath(tb testing.TB, dsn, schema string) string {
	tb.Helper()
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			tb.Fatalf("parse %s: %v", EnvDSN, err)
		}
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return dsn + " search_path=" + schema
}
