package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// mustCommitter returns a committer over one SQLite connection with a table
// t(n INTEGER PRIMARY KEY), closed when the test ends unless closed is set.
func mustCommitter(tb testing.TB, closed bool) *committer {
	tb.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(tb.TempDir(), "g.db")+"?_pragma=journal_mode(WAL)&_txlock=immediate")
	if err != nil {
		tb.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	tb.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE TABLE t (n INTEGER PRIMARY KEY)`); err != nil {
		tb.Fatal(err)
	}
	c := newCommitter(db)
	if !closed {
		tb.Cleanup(c.close)
	}
	return c
}

func insert(n int) func(tx *sql.Tx) error {
	return func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO t (n) VALUES (?)`, n)
		return err
	}
}

func mustRows(tb testing.TB, c *committer) []int {
	tb.Helper()
	rows, err := c.write.Query(`SELECT n FROM t ORDER BY n`)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var ns []int
	for rows.Next() {
		var n int
		if err := rows.Scan(&n); err != nil {
			tb.Fatal(err)
		}
		ns = append(ns, n)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return ns
}

// TestGroupCommitBatch runs one batch by hand: a job that fails, one that panics, one
// that breaks a constraint after writing, and one whose caller gave up are rolled back
// alone; the others commit together and each caller learns its own outcome.
func TestGroupCommitBatch(t *testing.T) {
	t.Parallel()
	c := mustCommitter(t, false)
	boom := errors.New("boom")
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	ctx := context.Background()
	jobs := []*txJob{
		{ctx: ctx, fn: insert(1)},
		{ctx: ctx, fn: func(tx *sql.Tx) error {
			if err := insert(2)(tx); err != nil {
				return err
			}
			return boom
		}},
		{ctx: ctx, fn: func(tx *sql.Tx) error {
			if err := insert(3)(tx); err != nil {
				return err
			}
			panic("bad request")
		}},
		{ctx: ctx, fn: func(tx *sql.Tx) error {
			if err := insert(4)(tx); err != nil {
				return err
			}
			return insert(1)(tx) // duplicate of the first job's row
		}},
		{ctx: gone, fn: insert(5)},
		{ctx: ctx, fn: insert(6)},
	}
	for _, j := range jobs {
		j.done = make(chan error, 1)
	}
	// As the loop does: what a batch did not reach in its time goes on in the next.
	for rest := c.run(jobs); len(rest) > 0; rest = c.run(rest) {
	}

	var errs []error
	for _, j := range jobs {
		errs = append(errs, <-j.done)
	}
	if errs[0] != nil || errs[5] != nil {
		t.Errorf("good jobs failed: %v, %v", errs[0], errs[5])
	}
	if !errors.Is(errs[1], boom) {
		t.Errorf("failing job: %v", errs[1])
	}
	if errs[2] == nil || errs[3] == nil {
		t.Errorf("panicking job: %v; constraint job: %v", errs[2], errs[3])
	}
	if !errors.Is(errs[4], context.Canceled) {
		t.Errorf("abandoned job: %v", errs[4])
	}
	if got := fmt.Sprint(mustRows(t, c)); got != "[1 6]" {
		t.Errorf("rows %s, want [1 6]", got)
	}
}

// TestGroupCommitConcurrent: many concurrent transactions all commit exactly once,
// and duplicates are refused by the constraint, not lost or doubled.
func TestGroupCommitConcurrent(t *testing.T) {
	t.Parallel()
	c := mustCommitter(t, false)
	const n = 200
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		failed int
	)
	for i := range 2 * n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.do(context.Background(), insert(i%n)); err != nil {
				mu.Lock()
				failed++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	rows := mustRows(t, c)
	if len(rows) != n || failed != n {
		t.Errorf("%d rows and %d refused duplicates, want %d and %d", len(rows), failed, n, n)
	}
}

// TestGroupCommitClosed: after Close a transaction is refused, not left waiting.
func TestGroupCommitClosed(t *testing.T) {
	t.Parallel()
	c := mustCommitter(t, true)
	c.close()
	if err := c.do(context.Background(), insert(1)); err == nil {
		t.Fatal("a closed committer accepted a transaction")
	}
}

// TestGroupCommitTimeBound: a batch whose transactions take longer than maxBatchTime
// commits what it ran and hands the rest back; every job runs once and commits.
func TestGroupCommitTimeBound(t *testing.T) {
	t.Parallel()
	c := mustCommitter(t, false)
	var jobs []*txJob
	for n := range 5 {
		jobs = append(jobs, &txJob{ctx: context.Background(), done: make(chan error, 1), fn: func(tx *sql.Tx) error {
			time.Sleep(maxBatchTime)
			return insert(n)(tx)
		}})
	}
	rest := c.run(jobs)
	if len(rest) == 0 || len(rest) == len(jobs) {
		t.Fatalf("first batch left %d of %d jobs", len(rest), len(jobs))
	}
	for len(rest) > 0 {
		rest = c.run(rest)
	}
	for i, j := range jobs {
		if err := <-j.done; err != nil {
			t.Errorf("job %d: %v", i, err)
		}
	}
	if got := fmt.Sprint(mustRows(t, c)); got != "[0 1 2 3 4]" {
		t.Errorf("rows %s", got)
	}
}

// TestGroupCommitSavepointFailure: when the batch itself breaks (here a job releases
// its own savepoint, so the committer's RELEASE fails), the job fails, and the ones
// that had not started go on in the next batch instead of failing with it. (The
// breaking job comes first: the time bound never splits a batch before its first job.)
func TestGroupCommitSavepointFailure(t *testing.T) {
	t.Parallel()
	c := mustCommitter(t, false)
	ctx := context.Background()
	jobs := []*txJob{
		{ctx: ctx, fn: func(tx *sql.Tx) error {
			_, err := tx.Exec("RELEASE SAVEPOINT job")
			return err
		}},
		{ctx: ctx, fn: insert(2)},
	}
	for _, j := range jobs {
		j.done = make(chan error, 1)
	}
	rest := c.run(jobs)
	if len(rest) != 1 || rest[0] != jobs[1] {
		t.Fatalf("handed back %d jobs, want the one not started", len(rest))
	}
	if err := <-jobs[0].done; err == nil {
		t.Error("the job that broke the batch succeeded")
	}
	for len(rest) > 0 {
		rest = c.run(rest)
	}
	if err := <-jobs[1].done; err != nil {
		t.Errorf("the job carried over: %v", err)
	}
	if got := fmt.Sprint(mustRows(t, c)); got != "[2]" {
		t.Errorf("rows %s, want [2]", got)
	}
}
