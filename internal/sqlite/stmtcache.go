package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"

	"modernc.org/sqlite"

	"github.com/skygate/skygate/internal/telemetry"
)

// SQLite spends much of a short query parsing its SQL. database/sql does not keep
// prepared statements for plain db.Query/tx.Exec calls, so this driver wrapper keeps
// them per connection: its connections hide the driver's direct Exec/Query paths, which
// makes database/sql prepare, run and close a statement for every call, and answer the
// prepare from a per-connection cache with a Close that only returns the statement to
// the cache. The store's statements are a fixed set, so the cache stays small.
// Why it is kept: docs/decisions/0201-sqlite-statement-cache.md.

// maxCachedStmts bounds the statements kept per connection.
const maxCachedStmts = 512

// cachingDriver opens modernc.org/sqlite connections wrapped in cachingConn.
//
// detach runs every statement with its context's values but without its cancellation.
// The writer pool sets it because of group commit: a statement whose context ends
// mid-way makes the driver call sqlite3_interrupt, and an interrupted INSERT, UPDATE or
// DELETE rolls back the whole transaction, which group commit shares among many
// requests; one client hanging up would fail them all. A request that gave up before
// its turn is skipped by the committer instead, and database/sql refuses a statement
// whose context has already ended before it reaches the driver.
//
// obs, when not nil, observes every statement and transaction of its connections
// (observe.go).
type cachingDriver struct {
	base   *sqlite.Driver
	detach bool
	obs    *telemetry.Statements
}

func (d cachingDriver) Open(name string) (driver.Conn, error) {
	c, err := d.base.Open(name)
	if err != nil {
		return nil, err
	}
	bc, ok := c.(baseConn)
	if !ok {
		_ = c.Close() // the connection is unusable either way
		return nil, errors.New("sqlite: driver connection lacks context methods")
	}
	return &cachingConn{base: bc, stmts: map[string]*cachedStmt{}, detach: d.detach, obs: d.obs}, nil
}

// baseConn is what the wrapper needs of a driver connection.
type baseConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

// cachingConn is used by one goroutine at a time (database/sql guarantees it), so the
// cache needs no lock.
type cachingConn struct {
	base   baseConn
	stmts  map[string]*cachedStmt
	detach bool
	obs    *telemetry.Statements
}

var (
	_ driver.ConnBeginTx        = (*cachingConn)(nil)
	_ driver.ConnPrepareContext = (*cachingConn)(nil)
	_ driver.Pinger             = (*cachingConn)(nil)
	_ driver.SessionResetter    = (*cachingConn)(nil)
	_ driver.Validator          = (*cachingConn)(nil)
)

func (c *cachingConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// PrepareContext returns the cached statement for query, or prepares one. A cached
// statement still in use (its rows open) is not shared: the caller gets a fresh,
// uncached statement.
func (c *cachingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if s, ok := c.stmts[query]; ok && !s.busy {
		s.busy = true
		return s, nil
	}
	st, err := c.base.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	s := &cachedStmt{Stmt: st, busy: true, detach: c.detach}
	if c.obs != nil {
		s.op = c.obs.Operation(query)
	}
	if _, exists := c.stmts[query]; !exists && len(c.stmts) < maxCachedStmts {
		s.cached = true
		c.stmts[query] = s
	}
	return s, nil
}

func (c *cachingConn) Close() error {
	var errs []error
	for q, s := range c.stmts {
		errs = append(errs, s.Stmt.Close())
		delete(c.stmts, q)
	}
	return errors.Join(append(errs, c.base.Close())...)
}

func (c *cachingConn) Begin() (driver.Tx, error) { // required by driver.Conn
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *cachingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if c.obs != nil {
		return observeBegin(ctx, c.obs, func(ctx context.Context) (driver.Tx, error) { return c.base.BeginTx(ctx, opts) })
	}
	return c.base.BeginTx(ctx, opts)
}

func (c *cachingConn) Ping(ctx context.Context) error         { return c.base.Ping(ctx) }
func (c *cachingConn) ResetSession(ctx context.Context) error { return c.base.ResetSession(ctx) }
func (c *cachingConn) IsValid() bool                          { return c.base.IsValid() }

// cachedStmt is a prepared statement that survives Close while cached. op, when not
// nil, observes its runs.
type cachedStmt struct {
	driver.Stmt
	cached bool
	busy   bool
	detach bool
	op     *telemetry.Operation
}

// Close returns a cached statement to its connection's cache and closes an uncached one.
func (s *cachedStmt) Close() error {
	if s.cached {
		s.busy = false
		return nil
	}
	return s.Stmt.Close()
}

func (s *cachedStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	if s.detach {
		ctx = context.WithoutCancel(ctx)
	}
	if s.op != nil {
		ctx, st := s.op.Start(ctx)
		res, err := s.Stmt.(driver.StmtExecContext).ExecContext(ctx, args)
		st.End(err)
		return res, err
	}
	return s.Stmt.(driver.StmtExecContext).ExecContext(ctx, args)
}

func (s *cachedStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	if s.detach {
		ctx = context.WithoutCancel(ctx)
	}
	if s.op != nil {
		return observeQuery(ctx, s.op, func(ctx context.Context) (driver.Rows, error) {
			return s.Stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
		})
	}
	return s.Stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
}
