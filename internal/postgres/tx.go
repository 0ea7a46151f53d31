package postgres

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

// inTx runs fn in a transaction and commits when fn returns nil.
func (s *Store) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("postgres: begin: %w", err)
	}
	// Rollback after a successful Commit is a harmless ErrTxDone; deferring it
	// unconditionally also covers a panic in fn.
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("postgres: commit: %w", err)
	}
	return nil
}

// interpret turns a driver error into a domain error (sqlstore.Interpret).
func interpret(o sqlstore.Outcome, err error) error {
	return sqlstore.Interpret("postgres", classify, o, err)
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
// arguments, from one snapshot (a repeatable-read transaction). list takes the
// filter, then LIMIT and OFFSET.
func listPage[T any](ctx context.Context, s *Store, op string, scan func(sqlstore.Scanner) (T, error), list, count string, p skygate.Page, filter ...any) ([]T, int, error) {
	limit, offset := sqlstore.PageArgs(p)
	var (
		items []T
		total int
	)
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead})
	if err != nil {
		return nil, 0, fmt.Errorf("postgres: begin read: %w", err)
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
