package sqlstore

import (
	"context"
	"database/sql"
	"slices"
	"time"

	"github.com/skygate/skygate"
)

// DB is an engine's database as the shared flows use it: where one statement reads or
// writes, how a snapshot or a write transaction begins, the form in which its SQL
// takes a time or a list, how its driver's errors are classified, and its own writers
// of events and audit records. Each engine fills one in when it opens. Every flow
// takes the engine's statements as arguments, so the SQL stays in the engine's package,
// written for that engine.
type DB struct {
	// Engine names the engine in the errors the store keeps internal.
	Engine string
	// Read runs the reads of one statement, Write the writes of one statement that
	// need no transaction.
	Read, Write *sql.DB
	// ReadTx begins a read-only transaction that sees one snapshot.
	ReadTx func(ctx context.Context) (*sql.Tx, error)
	// InTx runs fn in a write transaction and returns once it committed, or returns
	// fn's error, and then nothing fn did is kept.
	InTx func(ctx context.Context, fn func(tx *Tx) error) error
	// Classify tells which constraint a driver error violated.
	Classify func(error) Violation
	// Time is the stored form of a time.
	Time func(time.Time) any
	// Strings is the form in which a statement takes a list of strings.
	Strings func([]string) (any, error)
	// Events appends events to the outbox inside tx, the transaction of the change
	// they describe, each with its webhook delivery, noted in tx.Wrote and counted in
	// tx.Delivered.
	Events func(ctx context.Context, tx *Tx, events []*skygate.Event) error
	// Audit appends e inside tx, the transaction of the write it describes; a nil e is
	// no record. Every audited write calls it last, so that the record is committed
	// with the write or not at all (skygate.AuditStore).
	Audit func(ctx context.Context, tx *Tx, e *skygate.AuditEvent) error
	// Sealer seals passengers' personal data and idempotency records at rest.
	Sealer skygate.Sealer
}

// Tx is a write transaction of a DB.
type Tx struct {
	*sql.Tx
	// Delivered counts the webhook deliveries the transaction enqueued; after a
	// commit that enqueued any, the engine calls its OnDeliveries function.
	Delivered int
	// Wrote lists the accounts of the events the transaction appended to the outbox,
	// once each; after a commit that appended any, the engine calls its OnEvents
	// function with them.
	Wrote []string
}

// WroteEvents adds the accounts of events to t.Wrote.
func (t *Tx) WroteEvents(events []*skygate.Event) {
	for _, e := range events {
		if !slices.Contains(t.Wrote, e.AccountID) {
			t.Wrote = append(t.Wrote, e.AccountID)
		}
	}
}

// Interpret turns a driver error of db's engine into a domain error (Interpret).
func (db *DB) Interpret(o Outcome, err error) error {
	return Interpret(db.Engine, db.Classify, o, err)
}

// NullTime is the stored form of an optional time: NULL for nil.
func (db *DB) NullTime(t *time.Time) any {
	if t == nil {
		return nil
	}
	return db.Time(*t)
}

// Get reads the row of query with scan on the read pool; no row is o.NotFound.
func Get[T any](ctx context.Context, db *DB, o Outcome, scan func(Scanner) (T, error), query string, args ...any) (T, error) {
	v, err := scan(db.Read.QueryRowContext(ctx, query, args...))
	if err != nil {
		var zero T
		return zero, db.Interpret(o, err)
	}
	return v, nil
}

// All reads every row of query with scan on the read pool. The result is never nil.
func All[T any](ctx context.Context, db *DB, op string, scan func(Scanner) (T, error), query string, args ...any) ([]T, error) {
	out, err := QueryAll(ctx, db.Read, scan, query, args...)
	if err != nil {
		return nil, db.Interpret(Outcome{Op: op}, err)
	}
	return out, nil
}

// inReadTx runs fn in a read transaction of db (ReadTx), so that its queries see one
// snapshot.
func inReadTx(ctx context.Context, db *DB, fn func(tx *sql.Tx) error) error {
	tx, err := db.ReadTx(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }() // after Commit, a harmless ErrTxDone
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// ListPage returns a page of list and the total of count, both with the filter
// arguments, from one snapshot. list takes the filter, then LIMIT and OFFSET.
func ListPage[T any](ctx context.Context, db *DB, op string, scan func(Scanner) (T, error), list, count string, p skygate.Page, filter ...any) ([]T, int, error) {
	return listPage(ctx, db, Outcome{Op: op}, nil, scan, list, count, p, filter...)
}

// listPage is ListPage that also calls then, if any, with the page in the snapshot.
func listPage[T any](ctx context.Context, db *DB, o Outcome, then func(tx Queryer, items []T) error, scan func(Scanner) (T, error), list, count string, p skygate.Page, filter ...any) ([]T, int, error) {
	limit, offset := PageArgs(p)
	var (
		items []T
		total int
	)
	err := inReadTx(ctx, db, func(tx *sql.Tx) error {
		var err error
		if items, err = QueryAll(ctx, tx, scan, list, append(filter[:len(filter):len(filter)], limit, offset)...); err != nil {
			return err
		}
		if then != nil {
			if err := then(tx, items); err != nil {
				return err
			}
		}
		return tx.QueryRowContext(ctx, count, filter...).Scan(&total)
	})
	if err != nil {
		return nil, 0, db.Interpret(o, err)
	}
	return items, total, nil
}

// getThen reads the row of query with scan and calls then with it, in one snapshot;
// no row is o.NotFound.
func getThen[T any](ctx context.Context, db *DB, o Outcome, then func(tx Queryer, v T) error, scan func(Scanner) (T, error), query string, args ...any) (T, error) {
	var v T
	err := inReadTx(ctx, db, func(tx *sql.Tx) (err error) {
		if v, err = scan(tx.QueryRowContext(ctx, query, args...)); err != nil {
			return err
		}
		return then(tx, v)
	})
	if err != nil {
		var zero T
		return zero, db.Interpret(o, err)
	}
	return v, nil
}

// checkAffected returns a CodeNotFound error with message when res changed no row.
func checkAffected(res sql.Result, message string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return notFound(message)
	}
	return nil
}

// Affected runs the write of query on the write pool and returns the rows it changed.
func Affected(ctx context.Context, db *DB, op string, query string, args ...any) (int64, error) {
	res, err := db.Write.ExecContext(ctx, query, args...)
	var n int64
	if err == nil {
		n, err = res.RowsAffected()
	}
	if err != nil {
		return 0, db.Interpret(Outcome{Op: op}, err)
	}
	return n, nil
}

// Exec runs the write of query and audit's record in one transaction; without a
// record it runs alone.
func Exec(ctx context.Context, db *DB, o Outcome, audit *skygate.AuditEvent, query string, args ...any) error {
	return exec(ctx, db, o, audit, false, query, args...)
}

// Delete is Exec of a statement that must change a row: one that changes none is
// o.NotFound.
func Delete(ctx context.Context, db *DB, o Outcome, audit *skygate.AuditEvent, query string, args ...any) error {
	return exec(ctx, db, o, audit, true, query, args...)
}

// execer is what *sql.DB and *sql.Tx share for writing.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func exec(ctx context.Context, db *DB, o Outcome, audit *skygate.AuditEvent, mustChange bool, query string, args ...any) error {
	run := func(ctx context.Context, q execer) error {
		res, err := q.ExecContext(ctx, query, args...)
		if err == nil && mustChange {
			err = checkAffected(res, o.NotFound)
		}
		return err
	}
	if audit == nil {
		return db.Interpret(o, run(ctx, db.Write))
	}
	return db.Interpret(o, db.InTx(ctx, func(tx *Tx) error {
		if err := run(ctx, tx); err != nil {
			return err
		}
		return db.Audit(ctx, tx, audit)
	}))
}

// WriteRow runs the write of query, which returns one row, read with scan, and
// audit's record in one transaction; without a record it runs alone. No row is
// o.NotFound.
func WriteRow[T any](ctx context.Context, db *DB, o Outcome, audit *skygate.AuditEvent, scan func(Scanner) (T, error), query string, args ...any) (T, error) {
	var (
		v   T
		err error
	)
	if audit == nil {
		v, err = scan(db.Write.QueryRowContext(ctx, query, args...))
	} else {
		err = db.InTx(ctx, func(tx *Tx) (err error) {
			if v, err = scan(tx.QueryRowContext(ctx, query, args...)); err != nil {
				return err
			}
			return db.Audit(ctx, tx, audit)
		})
	}
	if err != nil {
		var zero T
		return zero, db.Interpret(o, err)
	}
	return v, nil
}

// inBatches calls batch with the size of each next batch, per or what is left of a
// positive limit, until a batch does fewer than it was asked to or the limit is
// reached, and returns the total done.
func inBatches(limit, per int, batch func(n int) (done int, err error)) (int, error) {
	total := 0
	for limit <= 0 || total < limit {
		n := per
		if limit > 0 {
			n = min(n, limit-total)
		}
		done, err := batch(n)
		if err != nil {
			return total, err
		}
		total += done
		if done < n {
			break
		}
	}
	return total, nil
}
