package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
	"github.com/skygate/skygate/internal/telemetry"
)

var _ skygate.Store = (*Store)(nil)

//go:embed migrations/*.sql
var migrations embed.FS

// Store is skygate.Store on a PostgreSQL database.
type Store struct {
	pool *sql.DB
	// db is the pool as the shared flows of internal/sqlstore use it (tx.go).
	db *sqlstore.DB
	// onDeliveries is called after the commit of a transaction that enqueued webhook
	// deliveries.
	onDeliveries atomic.Pointer[func()]
	// onEvents is called after the commit of a transaction that wrote events.
	onEvents atomic.Pointer[func(accountIDs []string)]
}

// SQLSTATE codes the store interprets.
const (
	codeUniqueViolation     = "23505"
	codeForeignKeyViolation = "23503"
)

// classify maps the SQLSTATE of a server error.
func classify(err error) sqlstore.Violation {
	var e *pgconn.PgError
	if !errors.As(err, &e) {
		return sqlstore.NoViolation
	}
	switch e.Code {
	case codeUniqueViolation:
		return sqlstore.UniqueViolation
	case codeForeignKeyViolation:
		return sqlstore.ForeignKeyViolation
	default:
		return sqlstore.NoViolation
	}
}

// DefaultMaxConns is the connections one replica's pool may open when Open is not told:
// four, or one a CPU where there are more (pgxpool's rule). It bounds how many
// statements of the replica PostgreSQL runs at once: past about twice the database's
// cores, more of them only wait on each other's locks inside PostgreSQL, where waiting
// costs more than in the pool's queue.
func DefaultMaxConns() int { return max(4, runtime.NumCPU()) }

// Open connects to the database named by dsn (a postgres:// URL or key=value string;
// runtime parameters such as search_path are honoured) and checks the connection. The
// pool opens at most maxConns connections (DefaultMaxConns when maxConns ≤ 0); size
// PostgreSQL's max_connections for replicas × maxConns plus what else connects. It
// does not migrate; call Migrate before use. sealer (required) seals passengers'
// personal data and idempotency records at rest: a *seal.Box of
// seal.PurposeStoreRecords. obs, when not nil, observes every statement the pool runs
// (its duration, and its span within a traced request); see observe.go.
func Open(ctx context.Context, dsn string, maxConns int, sealer skygate.Sealer, obs *telemetry.Statements) (*Store, error) {
	if sealer == nil {
		return nil, errors.New("postgres: open: a sealer is required")
	}
	if maxConns <= 0 {
		maxConns = DefaultMaxConns()
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	if obs != nil {
		cfg.Tracer = queryTracer{obs}
	}
	pool := stdlib.OpenDB(*cfg)
	// The pool keeps idle as many connections as it may open: database/sql closes a
	// connection given back while MaxIdleConns are idle, so a lower idle limit makes
	// the pool reconnect each time its load dips and rises, and the requests that meet
	// a new connection wait for a new backend and its cold caches. Idle connections
	// still close after ConnMaxIdleTime.
	pool.SetMaxOpenConns(maxConns)
	pool.SetMaxIdleConns(maxConns)
	pool.SetConnMaxIdleTime(5 * time.Minute)
	pool.SetConnMaxLifetime(time.Hour)
	if err := pool.PingContext(ctx); err != nil {
		_ = pool.Close() // the ping's error is the one to report
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	return newStore(pool, sealer), nil
}

// Pools returns the store's connection pool, named postgres, for monitoring (its
// Stats); callers must not run statements on it.
func (s *Store) Pools() map[string]*sql.DB { return map[string]*sql.DB{"postgres": s.pool} }

// Ping checks that the pool reaches the database.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.PingContext(ctx); err != nil {
		return fmt.Errorf("postgres: ping: %w", err)
	}
	return nil
}

// Close closes the pool.
func (s *Store) Close() error { return s.pool.Close() }

// Migrate brings the schema up to date. Replicas may call it at the same time: a
// session advisory lock lets one migrate while the others wait, then find nothing to
// do. The lock id is derived from the current schema, so databases that keep several
// Skygate schemas (tests) migrate them independently.
func (s *Store) Migrate(ctx context.Context) error {
	var schema string
	if err := s.pool.QueryRowContext(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		return fmt.Errorf("postgres: migrate: current schema: %w", err)
	}
	if schema == "" {
		return errors.New("postgres: migrate: no schema on the search_path exists")
	}
	locker, err := lock.NewPostgresSessionLocker(
		lock.WithLockID(lockID(schema)),
		lock.WithLockTimeout(1, 600), // poll every second, for up to ten minutes
	)
	if err != nil {
		return fmt.Errorf("postgres: migrate: %w", err)
	}
	p, err := s.migrations(goose.WithSessionLocker(locker))
	if err != nil {
		return err
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("postgres: migrate: %w", err)
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
		return false, fmt.Errorf("postgres: migration status: %w", err)
	}
	return pending, nil
}

// migrations returns a goose provider of the embedded migrations.
func (s *Store) migrations(opts ...goose.ProviderOption) (*goose.Provider, error) {
	fsys, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, fmt.Errorf("postgres: migrations: %w", err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, s.pool, fsys,
		append([]goose.ProviderOption{goose.WithDisableGlobalRegistry(true)}, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("postgres: migrations: %w", err)
	}
	return p, nil
}

// lockID is the advisory lock key of migrations in schema.
func lockID(schema string) int64 {
	h := fnv.New64a()
	h.Write([]byte("skygate migrations\x00" + schema))
	return int64(h.Sum64())
}
