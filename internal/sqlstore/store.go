package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skygate/skygate"
)

var _ skygate.Store = (*Store)(nil)

// Store implements skygate.Store over two connection pools: writes and every
// read-modify-write transaction go to write, plain reads to read. PostgreSQL passes one
// pool twice; SQLite passes a single-connection writer and a pool of readers so that
// writers queue in Go instead of failing with SQLITE_BUSY.
type Store struct {
	d     Dialect
	write *sql.DB
	read  *sql.DB
	// sealer seals what rows must not hold in clear (sealed.go).
	sealer skygate.Sealer
	stmts  []string
	// claimUpdates[n] is the statement that updateClaimed runs for n bookings.
	claimUpdates [claimsPerTx + 1]string
	// createAtOnce[n] is createBookingAtOnce's statement for n events (0 or 1); empty
	// unless the dialect has WritableCTE.
	createAtOnce [maxEventsAtOnce + 1]string
	// eventAtOnce is insertEventAtOnce's statement; empty unless the dialect has
	// WritableCTE.
	eventAtOnce string
	group       *committer // nil unless the dialect asks for group commit
	// concurrent says whether the engine runs writers concurrently (see
	// concurrentWriters), derived from the dialect once.
	concurrent bool

	// onDeliveries is called after a commit of a transaction that enqueued webhook
	// deliveries; deliveryTxs holds the open transactions that did.
	onDeliveries atomic.Pointer[func()]
	deliveryTxs  sync.Map // *sql.Tx → struct{}
}

// OnDeliveries sets f to be called after every commit of a transaction that enqueued
// webhook deliveries, so that a dispatcher in this process can send them at once
// (other processes find them when they poll). Events of an account without an active
// subscription enqueue none and call nothing: a dispatcher would find nothing to send.
// f must not block.
func (s *Store) OnDeliveries(f func()) { s.onDeliveries.Store(&f) }

// markDeliveries records that tx enqueued deliveries.
func (s *Store) markDeliveries(tx *sql.Tx) {
	if s.onDeliveries.Load() != nil {
		s.deliveryTxs.Store(tx, struct{}{})
	}
}

// deliveriesCommitted calls the OnDeliveries function, if any: deliveries committed.
func (s *Store) deliveriesCommitted() {
	if f := s.onDeliveries.Load(); f != nil {
		(*f)()
	}
}

// ended forgets tx and, when it committed deliveries, calls the OnDeliveries function.
func (s *Store) ended(tx *sql.Tx, committed bool) {
	if _, had := s.deliveryTxs.LoadAndDelete(tx); had && committed {
		s.deliveriesCommitted()
	}
}

// New returns a store over the pools; it owns them and Close closes them. write and
// read may be the same pool. sealer seals passengers' personal data and idempotency
// records (sealed.go); a store without one fails every write and read of those.
func New(d Dialect, write, read *sql.DB, sealer skygate.Sealer) *Store {
	s := &Store{d: d, write: write, read: read, sealer: sealer, stmts: make([]string, len(registry)),
		concurrent: d.LockTable != nil && d.LockTable("events") != ""}
	for i, q := range registry {
		s.stmts[i] = rebind(d.Placeholder, q)
	}
	for n := range s.claimUpdates {
		s.claimUpdates[n] = rebind(d.Placeholder, updateClaimedSQL(d.TimeType, n))
	}
	if d.WritableCTE {
		for n := range s.createAtOnce {
			s.createAtOnce[n] = rebind(d.Placeholder, createBookingSQL(n > 0))
		}
		s.eventAtOnce = rebind(d.Placeholder, eventAtOnceSQL())
	}
	if d.GroupCommit {
		s.group = newCommitter(s)
	}
	return s
}

// concurrentWriters reports whether the engine runs writers concurrently, so that
// reads which decide a write must lock their rows (claims, the pool, eSIMs) and the
// outbox's feed positions events after their commit. It follows the dialect's
// LockTable, which is empty exactly when the engine serialises writers (SQLite's
// single writer connection).
func (s *Store) concurrentWriters() bool { return s.concurrent }

// Pools returns the store's connection pools by name, for monitoring (their Stats);
// callers must not run statements on them. An engine whose reads and writes share a
// pool (PostgreSQL) has one, named after the engine; SQLite has ENGINE_write and
// ENGINE_read.
func (s *Store) Pools() map[string]*sql.DB {
	if s.read == s.write {
		return map[string]*sql.DB{s.d.Name: s.write}
	}
	return map[string]*sql.DB{s.d.Name + "_write": s.write, s.d.Name + "_read": s.read}
}

// Ping checks that both pools reach the database.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.write.PingContext(ctx); err != nil {
		return fmt.Errorf("%s: ping: %w", s.d.Name, err)
	}
	if s.read != s.write {
		if err := s.read.PingContext(ctx); err != nil {
			return fmt.Errorf("%s: ping reader: %w", s.d.Name, err)
		}
	}
	return nil
}

// Close closes both pools.
func (s *Store) Close() error {
	if s.group != nil {
		s.group.close()
	}
	err := s.write.Close()
	if s.read != s.write {
		err = errors.Join(err, s.read.Close())
	}
	return err
}

// queryer is what *sql.DB and *sql.Tx share for reading rows.
type queryer = Queryer

// q returns the statement's text in the dialect's placeholder style.
func (s *Store) q(st stmt) string { return s.stmts[st] }

// time returns the stored form of t.
func (s *Store) time(t time.Time) any { return s.d.EncodeTime(utc(t)) }

// inTx runs fn in a transaction on the write pool and commits when fn returns nil.
// fn must do all its work through tx: on SQLite the writer pool has one connection,
// so touching the pool again from inside fn would wait forever.
func (s *Store) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if s.group != nil {
		return s.group.do(ctx, fn)
	}
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s: begin: %w", s.d.Name, err)
	}
	// Rollback after a successful Commit is a harmless ErrTxDone; deferring it
	// unconditionally also covers a panic in fn.
	committed := false
	defer func() {
		tx.Rollback()
		s.ended(tx, committed)
	}()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%s: commit: %w", s.d.Name, err)
	}
	committed = true
	return nil
}

// inReadTx runs fn in a read-only transaction on the read pool, so that several
// queries (a page and its total) see one snapshot.
func (s *Store) inReadTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true, Isolation: s.d.ReadIsolation})
	if err != nil {
		return fmt.Errorf("%s: begin read: %w", s.d.Name, err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%s: commit read: %w", s.d.Name, err)
	}
	return nil
}

// lockTable takes the dialect's table lock inside tx, if the engine needs one.
func (s *Store) lockTable(ctx context.Context, tx *sql.Tx, table string) error {
	if s.d.LockTable == nil {
		return nil
	}
	q := s.d.LockTable(table)
	if q == "" {
		return nil
	}
	if _, err := tx.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("%s: lock %s: %w", s.d.Name, table, err)
	}
	return nil
}

// outcome says what an operation's failures mean to the caller: the public message of
// a unique violation (conflict) and of a missing row or broken reference (notFound).
// An empty message leaves that failure internal.
type outcome struct {
	op       string
	conflict string
	notFound string
}

// interpret turns a driver error into a domain error (see Interpret).
func (s *Store) interpret(o outcome, err error) error {
	return Interpret(s.d.Name, s.d.Classify, Outcome{Op: o.op, Conflict: o.conflict, NotFound: o.notFound}, err)
}

// stateUnstorableText is SQLSTATE 22021, character_not_in_repertoire: PostgreSQL's
// answer to a text parameter with a NUL byte, which any request can carry (a path id,
// a query filter). SQLite stores such text and finds nothing.
const stateUnstorableText = "22021"

// sqlState returns the SQLSTATE of a driver error that reports one (pgx's PgError
// does, through SQLState), or "".
func sqlState(err error) string {
	var e interface{ SQLState() string }
	if errors.As(err, &e) {
		return e.SQLState()
	}
	return ""
}

// notFound is the CodeNotFound error of an update or delete that matched no row.
func notFound(message string) error {
	return &skygate.Error{Code: skygate.CodeNotFound, Message: message}
}

// checkAffected returns a CodeNotFound error when res changed no row.
func (s *Store) checkAffected(o outcome, res sql.Result) error {
	n, err := res.RowsAffected()
	if err != nil {
		return s.interpret(o, err)
	}
	if n == 0 {
		return notFound(o.notFound)
	}
	return nil
}

// pageArgs returns LIMIT and OFFSET values for p. A Limit of zero or less means no
// limit, and a negative Offset is zero.
func pageArgs(p skygate.Page) (limit, offset int64) {
	limit, offset = int64(p.Limit), int64(p.Offset)
	if limit <= 0 {
		limit = math.MaxInt64
	}
	if offset < 0 {
		offset = 0
	}
	return limit, offset
}

// InTx runs fn in a write transaction of the store (group commit included), for an
// engine that writes some of its SQL itself while it still embeds this store.
func (s *Store) InTx(ctx context.Context, fn func(tx *sql.Tx) error) error { return s.inTx(ctx, fn) }

// MarkDeliveries records that tx, a transaction of InTx, enqueued webhook deliveries,
// so that the OnDeliveries function runs after its commit.
func (s *Store) MarkDeliveries(tx *sql.Tx) { s.markDeliveries(tx) }
