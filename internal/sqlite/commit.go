package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Group commit. On SQLite every write transaction goes through one connection and
// ends with an fsync, so write throughput is one transaction per fsync. With group
// commit, the transactions that are waiting when the writer becomes free run together
// in one database transaction, each inside a SAVEPOINT of its own: a transaction whose
// function fails is rolled back to its savepoint alone, the others commit, and every
// caller learns its outcome only after the shared COMMIT is durable. Nobody waits for
// a batch to fill: an idle store commits a lone transaction at once.
// Why it is kept: docs/decisions/0200-sqlite-group-commit.md.

// maxBatch bounds the transactions that share one commit, and maxBatchTime the time a
// batch spends running them before it commits.
const (
	maxBatch     = 64
	maxBatchTime = 2 * time.Millisecond
)

type txJob struct {
	ctx  context.Context
	fn   func(tx *sql.Tx) error
	err  error
	done chan error
}

// committer runs the write transactions of the single writer connection (write) in
// batches.
type committer struct {
	write   *sql.DB
	jobs    chan *txJob
	stop    chan struct{}
	stopped chan struct{}

	// onDeliveries is called after a commit of a batch that enqueued webhook
	// deliveries; deliveryTxs holds the open transactions that did.
	onDeliveries atomic.Pointer[func()]
	deliveryTxs  sync.Map // *sql.Tx → struct{}
	// onEvents is called after a commit of a batch that wrote events, with their
	// accounts; eventTxs holds the open transactions that did.
	onEvents atomic.Pointer[func(accountIDs []string)]
	eventTxs sync.Map // *sql.Tx → *[]string, the accounts
}

func newCommitter(write *sql.DB) *committer {
	c := &committer{write: write, jobs: make(chan *txJob),
		stop: make(chan struct{}), stopped: make(chan struct{})}
	go c.loop()
	return c
}

// errClosed is the error of a transaction handed in after close.
var errClosed = errors.New("sqlite: store closed")

// markDeliveries records that tx enqueued deliveries, so that the OnDeliveries
// function runs after its commit.
func (c *committer) markDeliveries(tx *sql.Tx) {
	if c.onDeliveries.Load() != nil {
		c.deliveryTxs.Store(tx, struct{}{})
	}
}

// markEvents records that tx wrote events of the accounts, so that the OnEvents
// function runs after its commit. The jobs of a batch share tx and run one at a time.
func (c *committer) markEvents(tx *sql.Tx, accountIDs []string) {
	if c.onEvents.Load() == nil {
		return
	}
	v, _ := c.eventTxs.LoadOrStore(tx, new([]string))
	ids := v.(*[]string)
	for _, id := range accountIDs {
		if !slices.Contains(*ids, id) {
			*ids = append(*ids, id)
		}
	}
}

// ended forgets tx and, when it committed deliveries or events, calls the
// OnDeliveries or OnEvents function.
func (c *committer) ended(tx *sql.Tx, committed bool) {
	if _, had := c.deliveryTxs.LoadAndDelete(tx); had && committed {
		if f := c.onDeliveries.Load(); f != nil {
			(*f)()
		}
	}
	if v, had := c.eventTxs.LoadAndDelete(tx); had && committed {
		if f := c.onEvents.Load(); f != nil {
			(*f)(*v.(*[]string))
		}
	}
}

// do runs fn in the next batch and returns its outcome once the batch committed.
func (c *committer) do(ctx context.Context, fn func(tx *sql.Tx) error) error {
	j := &txJob{ctx: ctx, fn: fn, done: make(chan error, 1)}
	select {
	case c.jobs <- j:
	case <-ctx.Done():
		return ctx.Err()
	case <-c.stop:
		return errClosed
	}
	return <-j.done
}

func (c *committer) loop() {
	defer close(c.stopped)
	var carry []*txJob // jobs a batch did not reach in its time
	for {
		batch := carry
		if len(batch) == 0 {
			select {
			case j := <-c.jobs:
				batch = append(batch, j)
			case <-c.stop:
				return
			}
		}
		// Let the goroutines that are about to hand in a transaction do so: on a
		// busy process they join this commit instead of waiting for the next. No
		// timer: an idle store still commits a lone transaction at once.
		runtime.Gosched()
	drain:
		for len(batch) < maxBatch {
			select {
			case j := <-c.jobs:
				batch = append(batch, j)
			default:
				break drain
			}
		}
		carry = c.run(batch)
	}
}

// run executes a batch in one transaction and reports to every job it ran. It stops
// taking jobs once maxBatchTime has passed and returns the ones it did not start, so
// that a large batch does not make all of its callers wait for all of it.
func (c *committer) run(batch []*txJob) (rest []*txJob) {
	start := time.Now()
	ctx := context.Background()
	tx, err := c.write.BeginTx(ctx, nil)
	if err != nil {
		finish(batch, fmt.Errorf("sqlite: begin: %w", err))
		return nil
	}
	committed := false
	defer func() {
		if !committed {
			c.ended(tx, false)
		}
	}()
	// abort rolls the transaction back after the savepoint statement of job i failed:
	// jobs 0..i fail with err, the ones not started go on in the next batch.
	abort := func(i int, what string, err error) []*txJob {
		_ = tx.Rollback() // err is the failure to report
		finish(batch[:i+1], fmt.Errorf("sqlite: %s: %w", what, err))
		return batch[i+1:]
	}
	for i, j := range batch {
		if i > 0 && time.Since(start) > maxBatchTime {
			batch, rest = batch[:i], batch[i:]
			break
		}
		if j.err = j.ctx.Err(); j.err != nil {
			continue
		}
		if _, err := tx.ExecContext(ctx, "SAVEPOINT job"); err != nil {
			return abort(i, "savepoint", err)
		}
		if j.err = runJob(j, tx); j.err != nil {
			if _, err := tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT job"); err != nil {
				return abort(i, "rollback to savepoint", err)
			}
		}
		if _, err := tx.ExecContext(ctx, "RELEASE SAVEPOINT job"); err != nil {
			return abort(i, "release savepoint", err)
		}
	}
	if err := tx.Commit(); err != nil {
		finish(batch, fmt.Errorf("sqlite: commit: %w", err))
		return rest
	}
	committed = true
	c.ended(tx, true) // before the callers learn of the commit, as without group commit
	for _, j := range batch {
		j.done <- j.err
	}
	return rest
}

// runJob runs one function, turning a panic into its error so that one bad request
// cannot take the batch (or the process) down.
func runJob(j *txJob, tx *sql.Tx) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic in transaction: %v", v)
		}
	}()
	return j.fn(tx)
}

// finish reports err to every job of a batch that did not commit. A job whose own
// function failed keeps its error: it was rolled back either way.
func finish(batch []*txJob, err error) {
	for _, j := range batch {
		if j.err != nil {
			j.done <- j.err
			continue
		}
		j.done <- err
	}
}

// close stops the committer after the batch in progress.
func (c *committer) close() {
	close(c.stop)
	<-c.stopped
}
