package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

// inTx runs fn in a write transaction and returns once it committed, or fn's error
// when fn failed, and then nothing fn did is kept. fn must do all its work through tx:
// the writer pool has one connection, so touching it again from inside fn would wait
// forever. fn may share its commit with other transactions (commit.go).
func (s *Store) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return s.group.do(ctx, fn)
}

// interpret turns a driver error into a domain error (sqlstore.Interpret).
func interpret(o sqlstore.Outcome, err error) error {
	return sqlstore.Interpret("sqlite", classify, o, err)
}

// micros is the stored form of a time: INTEGER unix microseconds in UTC.
func micros(t time.Time) int64 { return t.UnixMicro() }

// nullMicros is the stored form of an optional time: NULL for nil.
func nullMicros(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UnixMicro()
}

// checkAffected returns a CodeNotFound error with message when res changed no row.
func checkAffected(res sql.Result, message string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return sqlstore.NotFound(message)
	}
	return nil
}

// listPage returns a page of list and the total of count, both with the filter
// arguments, from one read transaction, which in WAL mode sees one snapshot. list
// takes the filter, then LIMIT and OFFSET.
func listPage[T any](ctx context.Context, s *Store, op string, scan func(sqlstore.Scanner) (T, error), list, count string, p skygate.Page, filter ...any) ([]T, int, error) {
	limit, offset := sqlstore.PageArgs(p)
	var (
		items []T
		total int
	)
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, 0, fmt.Errorf("sqlite: begin read: %w", err)
	}
	defer tx.Rollback()
	items, err = sqlstore.QueryAll(ctx, tx, scan, list, append(filter[:len(filter):len(filter)], limit, offset)...)
	if err == nil {
		err = tx.QueryRowContext(ctx, count, filter...).Scan(&total)
	}
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		return nil, 0, interpret(sqlstore.Outcome{Op: op}, err)
	}
	return items, total, nil
}
