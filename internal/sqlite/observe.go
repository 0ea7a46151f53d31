package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"

	"github.com/skygate/skygate/internal/telemetry"
)

// The statement cache's connections (stmtcache.go) report what they run to a
// telemetry.Statements, when the store has one: every statement from its start until
// its rows are closed, and each transaction's BEGIN, COMMIT and ROLLBACK, whose
// durations are the writer's lock waits and fsyncs. They see SQL text only, never a
// statement's arguments.

// observeBegin runs begin, which begins a transaction, as the operation BEGIN, and
// returns the transaction with its end observed as COMMIT or ROLLBACK.
func observeBegin(ctx context.Context, obs *telemetry.Statements, begin func(context.Context) (driver.Tx, error)) (driver.Tx, error) {
	ctx, st := obs.Operation("BEGIN").Start(ctx)
	tx, err := begin(ctx)
	st.End(err)
	if err != nil {
		return nil, err
	}
	return &observedTx{Tx: tx, ctx: ctx, obs: obs}, nil
}

// observedTx is a driver transaction whose end is observed.
type observedTx struct {
	driver.Tx
	ctx context.Context
	obs *telemetry.Statements
}

func (t *observedTx) Commit() error { return t.end("COMMIT", t.Tx.Commit) }

func (t *observedTx) Rollback() error { return t.end("ROLLBACK", t.Tx.Rollback) }

func (t *observedTx) end(op string, f func() error) error {
	_, st := t.obs.Operation(op).Start(t.ctx)
	err := f()
	st.End(err)
	return err
}

// observeQuery runs query, which starts a statement's rows, as op, and returns the
// rows with the statement's end observed when they are closed.
func observeQuery(ctx context.Context, op *telemetry.Operation, query func(context.Context) (driver.Rows, error)) (driver.Rows, error) {
	ctx, st := op.Start(ctx)
	rows, err := query(ctx)
	if err != nil {
		st.End(err)
		return nil, err
	}
	return &observedRows{Rows: rows, st: st}, nil
}

// observedRows are rows whose Close ends their statement's observation, with the
// first error reading them met, if any. database/sql asks no more of the driver's
// rows than driver.Rows for the store's scans.
type observedRows struct {
	driver.Rows
	st  telemetry.Statement
	err error
}

func (r *observedRows) Next(dest []driver.Value) error {
	err := r.Rows.Next(dest)
	if err != nil && !errors.Is(err, io.EOF) && r.err == nil {
		r.err = err
	}
	return err
}

func (r *observedRows) Close() error {
	err := r.Rows.Close()
	r.st.End(errors.Join(r.err, err))
	return err
}
