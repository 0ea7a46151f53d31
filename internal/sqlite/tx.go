package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

// newStore returns the store of the file at path, opened as the pools write and read.
// Times are passed as INTEGER unix microseconds in UTC and lists of strings as JSON
// arrays, which statements read with json_each.
func newStore(write, read *sql.DB, path string, sealer skygate.Sealer) *Store {
	s := &Store{write: write, read: read, path: path, group: newCommitter(write)}
	s.db = &sqlstore.DB{
		Engine: "sqlite",
		Read:   read,
		Write:  write,
		// A read transaction of the reader pool sees one snapshot in WAL mode.
		ReadTx: func(ctx context.Context) (*sql.Tx, error) {
			return read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		},
		InTx:     s.inTx,
		Classify: classify,
		Time:     func(t time.Time) any { return t.UnixMicro() },
		Strings:  func(v []string) (any, error) { return sqlstore.JSONText(v) },
		Events:   insertEvents,
		Audit: func(ctx context.Context, tx *sqlstore.Tx, e *skygate.AuditEvent) error {
			return sqlstore.AppendAudit(ctx, s.db, tx, insertAudit, e)
		},
		Sealer: sealer,
	}
	return s
}

// inTx runs fn in a write transaction and returns once it committed, or fn's error
// when fn failed, and then nothing fn did is kept. fn must do all its work through tx:
// the writer pool has one connection, so touching it again from inside fn would wait
// forever. fn may share its commit with other transactions (commit.go); a transaction
// that enqueued webhook deliveries is marked so that the OnDeliveries function runs
// after its commit.
func (s *Store) inTx(ctx context.Context, fn func(tx *sqlstore.Tx) error) error {
	return s.group.do(ctx, func(tx *sql.Tx) error {
		t := &sqlstore.Tx{Tx: tx}
		if err := fn(t); err != nil {
			return err
		}
		if t.Delivered > 0 {
			s.group.markDeliveries(tx)
		}
		if len(t.Wrote) > 0 {
			s.group.markEvents(tx, t.Wrote)
		}
		return nil
	})
}
