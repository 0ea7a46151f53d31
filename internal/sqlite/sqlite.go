package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"

	"github.com/pressly/goose/v3"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
	"github.com/skygate/skygate/internal/telemetry"
)

var _ skygate.Store = (*Store)(nil)

//go:embed migrations/*.sql
var migrations embed.FS

// Store is skygate.Store on one SQLite file.
type Store struct {
	write *sql.DB // the single writer connection; migrations too
	read  *sql.DB // readers, query_only
	// db is the pools as the shared flows of internal/sqlstore use them (tx.go).
	db   *sqlstore.DB
	path string
	// group runs every write transaction on write (commit.go).
	group *committer
}

// classify maps SQLite's extended result codes; the driver enables them on every
// connection.
func classify(err error) sqlstore.Violation {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return sqlstore.NoViolation
	}
	switch e.Code() {
	case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
		return sqlstore.UniqueViolation
	case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
		return sqlstore.ForeignKeyViolation
	default:
		return sqlstore.NoViolation
	}
}

// Open opens (creating it and its directory if needed) the database file at path. It
// does not migrate; call Migrate before use. The path must name a file: an in-memory
// database would give the writer and reader pools two different databases. sealer
// (required) seals passengers' personal data and idempotency records at rest: a
// *seal.Box of seal.PurposeStoreRecords. obs, when not nil, observes every statement
// and transaction of both pools (their durations, and their spans within a traced
// request); see observe.go.
func Open(ctx context.Context, path string, sealer skygate.Sealer, obs *telemetry.Statements) (*Store, error) {
	if path == "" || path == ":memory:" {
		return nil, fmt.Errorf("sqlite: open: a file path is required, got %q", path)
	}
	if sealer == nil {
		return nil, errors.New("sqlite: open: a sealer is required")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o750); err != nil {
		return nil, fmt.Errorf("sqlite: create directory of %s: %w", path, err)
	}

	// The writer is opened and pinged first so that it switches the file to WAL before
	// any reader connects.
	write, err := openPool(ctx, abs, writerParams(), 1, cachingDriver{detach: true, obs: obs})
	if err != nil {
		return nil, err
	}
	read, err := openPool(ctx, abs, readerParams(), max(4, runtime.GOMAXPROCS(0)), cachingDriver{obs: obs})
	if err != nil {
		_ = write.Close() // err is the one to report
		return nil, err
	}
	return newStore(write, read, abs, sealer), nil
}

// Close stops the committer after its batch in progress and closes the pools.
func (s *Store) Close() error {
	s.group.close()
	return errors.Join(s.write.Close(), s.read.Close())
}

// Ping checks that both pools reach the database.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.write.PingContext(ctx); err != nil {
		return fmt.Errorf("sqlite: ping: %w", err)
	}
	if err := s.read.PingContext(ctx); err != nil {
		return fmt.Errorf("sqlite: ping reader: %w", err)
	}
	return nil
}

// Pools returns the store's connection pools by name, for monitoring (their Stats);
// callers must not run statements on them.
func (s *Store) Pools() map[string]*sql.DB {
	return map[string]*sql.DB{"sqlite_write": s.write, "sqlite_read": s.read}
}

// Path returns the absolute path of the database file.
func (s *Store) Path() string { return s.path }

// Migrate brings the schema up to date. It is safe to call on every start.
func (s *Store) Migrate(ctx context.Context) error {
	p, err := s.migrations()
	if err != nil {
		return err
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("sqlite: migrate: %w", err)
	}
	return nil
}

// Pending reports whether migrations of this binary are not applied to the database.
func (s *Store) Pending(ctx context.Context) (bool, error) {
	p, err := s.migrations()
	if err != nil {
		return false, err
	}
	pending, err := p.HasPending(ctx)
	if err != nil {
		return false, fmt.Errorf("sqlite: migration status: %w", err)
	}
	return pending, nil
}

// migrations returns a goose provider of the embedded migrations.
func (s *Store) migrations() (*goose.Provider, error) {
	fsys, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, fmt.Errorf("sqlite: migrations: %w", err)
	}
	p, err := goose.NewProvider(goose.DialectSQLite3, s.write, fsys, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		return nil, fmt.Errorf("sqlite: migrations: %w", err)
	}
	return p, nil
}

// commonParams are set on every connection through _pragma, which the driver runs on
// each new connection of the pool, not only the first one. busy_timeout still matters
// with one writer: a checkpoint or another process can hold the lock briefly.
func commonParams() url.Values {
	return url.Values{"_pragma": {
		"busy_timeout(10000)",
		"journal_mode(WAL)",
		"synchronous(FULL)",
		"foreign_keys(ON)",
		// Savepoints (group commit puts every transaction in one) keep their undo
		// pages in a sub-journal, kept in memory rather than in a file.
		"temp_store(MEMORY)",
	}}
}

// writerParams start write transactions with BEGIN IMMEDIATE, so a transaction that
// reads before it writes cannot fail to upgrade its lock. SQLite's automatic
// checkpoint copies the WAL into the database file from the commit that crosses its
// threshold.
func writerParams() url.Values {
	v := commonParams()
	v.Set("_txlock", "immediate")
	return v
}

// readerParams make reader connections refuse writes, so a query sent to the wrong
// pool fails loudly instead of competing with the writer.
func readerParams() url.Values {
	v := commonParams()
	v.Add("_pragma", "query_only(1)")
	return v
}

// dsnConnector opens connections of a driver to one DSN.
type dsnConnector struct {
	dsn string
	d   driver.Driver
}

func (c dsnConnector) Connect(context.Context) (driver.Conn, error) { return c.d.Open(c.dsn) }
func (c dsnConnector) Driver() driver.Driver                        { return c.d }

// openPool opens a pool of at most conns connections to the file through d (its base
// driver set here; detach: see cachingDriver) and checks that one
// connection can be made.
func openPool(ctx context.Context, abs string, params url.Values, conns int, d cachingDriver) (*sql.DB, error) {
	// A file: URI percent-encodes the path, so names containing '?' or '#' survive.
	dsn := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: params.Encode()}).String()
	d.base = &sqlite.Driver{}
	db := sql.OpenDB(dsnConnector{dsn: dsn, d: d})
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close() // the ping's error is the one to report
		return nil, fmt.Errorf("sqlite: open %s: %w", abs, err)
	}
	return db, nil
}
