package sqlite

import (
	"context"
	"database/sql"
	"log/slog"
	"sync/atomic"
	"time"
)

// SQLite's automatic checkpoint runs inside the commit that crosses its threshold:
// that commit, and with group commit every transaction of its batch, waits while the
// WAL is copied into the database file and the file is synced. The writer therefore
// turns it off (wal_autocheckpoint(0)) and this checkpointer does the work from a
// connection of its own, in PASSIVE mode, which never blocks the writer or readers.
//
// It runs checkpointDelay after a commit, and then again after the next commit, so the
// work follows the writes in small pieces and an idle store wakes nobody. Small pieces
// matter on a busy core: a checkpoint is one call into SQLite that the Go scheduler
// cannot interrupt for up to 10 ms, and everything else on that core waits. At 200 ms
// between checkpoints, a booking load of 4 400 a second made each one copy 10–30 ms of
// pages and the booking p99 20 ms; at 20 ms, 2–3 ms each and 10–13 ms
// (docs/performance.md, "From 22:15").
//
// SQLite starts the WAL over only when a checkpoint has copied all of it, the writer
// begins its next transaction before another commit and no reader still reads an older
// snapshot. Under a steady write load the first seldom holds when the writer begins
// (the checkpointer runs beside a writer that commits hundreds of times a second), so
// the WAL grew for as long as the load lasted: by about 90 MB a second at 4 300
// bookings a second, gigabytes in a minute. Once a checkpoint finds the WAL longer
// than walRestartFrames, the writer therefore checkpoints too, between two group
// commits (afterCommit): nothing can commit between that checkpoint and the writer's
// next transaction, which then starts the WAL over unless a reader is still on an
// older snapshot, in which case the next gap tries again. Neither waits for anyone.
// (Cutting the file back with journal_size_limit would make the commit that starts
// it over truncate hundreds of MB: booking p99 71–103 ms in two of three runs.)

// checkpointDelay is the time from a commit to the checkpoint that copies it; the
// commits within it share that checkpoint.
const checkpointDelay = 20 * time.Millisecond

// walRestartFrames is the WAL length, in frames (pages of 4 KB), from which the
// writer helps to start it over: 16 MB.
const walRestartFrames = 4096

type checkpointer struct {
	db   *sql.DB
	wake chan struct{}
	stop chan struct{}
	done chan struct{}
	runs atomic.Int64 // checkpoints run, for tests
	long atomic.Bool  // the last checkpoint found at least restartFrames frames

	restartFrames int // walRestartFrames but in tests
}

// newCheckpointer returns a checkpointer that does nothing until start, and whose
// writer helps to start the WAL over from restartFrames frames; the writer's
// connections call its committed method.
func newCheckpointer(restartFrames int) *checkpointer {
	return &checkpointer{wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
		restartFrames: restartFrames}
}

// committed tells the checkpointer that the WAL has new frames. It never blocks: it
// runs inside SQLite's commit (a commit hook) on the writer's connection.
func (c *checkpointer) committed() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// start checkpoints through db, one connection of its own, until close.
func (c *checkpointer) start(db *sql.DB) {
	c.db = db
	go c.loop()
}

// loop waits for a commit, lets checkpointDelay pass and checkpoints. A failure is
// logged (the store has no logger of its own) and the next commit tries again.
func (c *checkpointer) loop() {
	defer close(c.done)
	for {
		select {
		case <-c.stop:
			return
		case <-c.wake:
		}
		select {
		case <-c.stop:
			return
		case <-time.After(checkpointDelay):
		}
		if err := c.checkpoint(); err != nil {
			slog.Warn("sqlite checkpoint failed", "err", err)
		}
	}
}

// checkpoint copies what it can of the WAL without waiting for anyone.
func (c *checkpointer) checkpoint() error {
	c.runs.Add(1)
	return c.passive(context.Background(), c.db)
}

// passive runs a PASSIVE checkpoint through db and notes whether the WAL is long.
func (c *checkpointer) passive(ctx context.Context, db *sql.DB) error {
	var busy, frames, copied int
	if err := db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied); err != nil {
		return err
	}
	if frames >= 0 { // -1: the checkpoint did not run, and says nothing of the WAL
		c.long.Store(frames >= c.restartFrames)
	}
	return nil
}

// afterCommit is the dialect's AfterCommit: while the WAL is long, it checkpoints from
// the writer between two group commits, so that the writer's next transaction can
// start the WAL over. While the WAL is short it costs one atomic load.
func (c *checkpointer) afterCommit(ctx context.Context, write *sql.DB) {
	if !c.long.Load() {
		return
	}
	if err := c.passive(ctx, write); err != nil {
		slog.Warn("sqlite checkpoint from the writer failed", "err", err)
	}
}

// close stops the loop and closes the connection; a last checkpoint copies what the
// loop had not.
func (c *checkpointer) close() error {
	close(c.stop)
	<-c.done
	_ = c.checkpoint()
	return c.db.Close()
}
