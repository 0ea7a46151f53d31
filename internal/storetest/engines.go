package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver for schema setup

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/postgres"
	"github.com/skygate/skygate/internal/seal"
	"github.com/skygate/skygate/internal/sqlite"
)

// EnvPostgresDSN names the environment variable with the DSN of a PostgreSQL database
// that tests may create schemas in. When it is unset, PostgreSQL tests are skipped.
const EnvPostgresDSN = "SKYGATE_TEST_DATABASE_URL"

// MustSQLite returns a migrated store on a new file in a temporary directory; the
// store is closed when the test ends. The file is a copy of one database migrated once
// per test binary (sqliteTemplate), so each test pays for a file copy instead of every
// migration.
func MustSQLite(tb testing.TB) *sqlite.Store {
	tb.Helper()
	template, err := sqliteTemplate()
	if err != nil {
		tb.Fatalf("sqlite template: %v", err)
	}
	path := filepath.Join(tb.TempDir(), "skygate.db")
	if err := os.WriteFile(path, template, 0o600); err != nil {
		tb.Fatalf("copy the sqlite template: %v", err)
	}
	s, err := sqlite.Open(tb.Context(), path, NewSealer(tb))
	if err != nil {
		tb.Fatalf("sqlite.Open: %v", err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// sqliteTemplate returns the content of an empty SQLite database with every migration
// applied, made on the first call. The migrations write no sealed data, so the copy
// serves stores of any sealer. Closing the store checkpoints its WAL into the main
// file, which alone then holds the whole database.
var sqliteTemplate = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "skygate-storetest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	sealer, err := newSealer()
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "skygate.db")
	s, err := sqlite.Open(context.Background(), path, sealer)
	if err != nil {
		return nil, err
	}
	err = s.Migrate(context.Background())
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
		return nil, fmt.Errorf("the WAL of the migrated database holds %d bytes after Close", fi.Size())
	}
	return os.ReadFile(path)
})

// MustPostgres returns a migrated store in a new schema of the database named by
// SKYGATE_TEST_DATABASE_URL, or skips the test when the variable is unset. The schema
// is dropped when the test ends, so tests and packages may share one database.
func MustPostgres(tb testing.TB) *postgres.Store {
	tb.Helper()
	return MustPostgresAt(tb, MustPostgresDSN(tb))
}

// MustPostgresAt returns a migrated store on dsn (from MustPostgresDSN), for tests that
// also open their own connections to the store's schema.
func MustPostgresAt(tb testing.TB, dsn string) *postgres.Store {
	tb.Helper()
	s, err := postgres.Open(tb.Context(), dsn, 0, NewSealer(tb))
	if err != nil {
		tb.Fatalf("postgres.Open: %v", err)
	}
	tb.Cleanup(func() { s.Close() })
	if err := s.Migrate(tb.Context()); err != nil {
		tb.Fatalf("postgres Migrate: %v", err)
	}
	return s
}

// NewSealer returns the sealer of a store of its own: a subkey of a new random master
// key, as the server derives it (seal.PurposeStoreRecords).
func NewSealer(tb testing.TB) skygate.Sealer {
	tb.Helper()
	sealer, err := newSealer()
	if err != nil {
		tb.Fatal(err)
	}
	return sealer
}

func newSealer() (skygate.Sealer, error) {
	box, err := seal.New(seal.NewMasterKey())
	if err != nil {
		return nil, err
	}
	return seal.New(box.DeriveKey(seal.PurposeStoreRecords))
}

// MustPostgresDSN creates an empty schema with a random name and returns a DSN whose
// search_path selects it, or skips the test when SKYGATE_TEST_DATABASE_URL is unset.
// The schema is dropped when the test ends, after cleanups registered later (such as
// closing a store on it) have run.
func MustPostgresDSN(tb testing.TB) string {
	tb.Helper()
	dsn := os.Getenv(EnvPostgresDSN)
	if dsn == "" {
		tb.Skipf("%s is not set; set it to a PostgreSQL DSN (e.g. postgres://root@127.0.0.1:5432/test?sslmode=disable) to run PostgreSQL tests", EnvPostgresDSN)
	}
	schema := "skygate_test_" + NewID()
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
		tb.Fatalf("open %s: %v", EnvPostgresDSN, err)
	}
	defer db.Close()
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
			tb.Fatalf("parse %s: %v", EnvPostgresDSN, err)
		}
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return dsn + " search_path=" + schema
}
