package sqlite

import (
	"context"
	"database/sql"
	"log/slog"
	"time"
)

// SQLite's automatic checkpoint runs inside the commit that crosses its threshold:
// that commit, and with group commit every transaction of its batch, waits while the
// WAL is copied into the database file and the file is synced. The writer therefore
// turns it off (wal_autocheckpoint(0)) and this checkpointer does the work from a
// connection of its own, in PASSIVE mode, which never blocks the writer or readers.
// SQLite starts the WAL over from its beginning once a checkpoint has copied it all, so
// it does not grow without bound; after a crash, the next open recovers it as always.

// checkpointInterval is how often the checkpointer copies the WAL back.
const checkpointInterval = 200 * time.Millisecond

type checkpointer struct {
	db   *sql.DB
	stop chan struct{}
	done chan struct{}
}

func startCheckpointer(db *sql.DB) *checkpointer {
	c := &checkpointer{db: db, stop: make(chan struct{}), done: make(chan struct{})}
	go c.loop()
	return c
}

// loop checkpoints every checkpointInterval. A failure is logged (the store has no
// logger of its own) and the next tick tries again.
func (c *checkpointer) loop() {
	defer close(c.done)
	t := time.NewTicker(checkpointInterval)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		if err := c.checkpoint(); err != nil {
			slog.Warn("sqlite checkpoint failed", "err", err)
		}
	}
}

// checkpoint copies what it can of the WAL without waiting for anyone.
func (c *checkpointer) checkpoint() error {
	var busy, frames, copied int
	return c.db.QueryRowContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied)
}

// close stops the loop and closes the connection; a last checkpoint copies what the
// loop had not.
func (c *checkpointer) close() error {
	close(c.stop)
	<-c.done
	_ = c.checkpoint()
	return c.db.Close()
}
