package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

// newStore returns the store of pool: one pool serves reads and writes, since
// PostgreSQL has no single-writer limit; times are passed as timestamptz and lists of
// strings as text arrays.
func newStore(pool *sql.DB, sealer skygate.Sealer) *Store {
	s := &Store{pool: pool}
	s.db = &sqlstore.DB{
		Engine: "postgres",
		Read:   pool,
		Write:  pool,
		ReadTx: func(ctx context.Context) (*sql.Tx, error) {
			return pool.BeginTx(ctx, &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead})
		},
		InTx:     s.inTx,
		Classify: classify,
		Time:     func(t time.Time) any { return sqlstore.UTC(t) },
		Strings:  func(v []string) (any, error) { return v, nil },
		Events:   insertEvents,
		Audit: func(ctx context.Context, tx *sqlstore.Tx, e *skygate.AuditEvent) error {
			return sqlstore.AppendAudit(ctx, s.db, tx, insertAudit, e)
		},
		Sealer: sealer,
	}
	return s
}

// inTx runs fn in a transaction and commits when fn returns nil; then it calls the
// OnDeliveries function if fn enqueued webhook deliveries and the OnEvents function if
// it wrote events.
func (s *Store) inTx(ctx context.Context, fn func(tx *sqlstore.Tx) error) error {
	tx, err := s.pool.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("postgres: begin: %w", err)
	}
	// Rollback after a successful Commit is a harmless ErrTxDone; deferring it
	// unconditionally also covers a panic in fn.
	defer func() { _ = tx.Rollback() }()
	t := &sqlstore.Tx{Tx: tx}
	if err := fn(t); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("postgres: commit: %w", err)
	}
	s.deliveriesCommitted(t.Delivered)
	s.eventsCommitted(t.Wrote)
	return nil
}
