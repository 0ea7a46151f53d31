package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// TestCheckpointFollowsCommits checks that the checkpointer runs after a commit of the
// writer and stays asleep while nothing is written.
func TestCheckpointFollowsCommits(t *testing.T) {
	t.Parallel()
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "skygate.db"), testSealer(t))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	if _, err := s.write.ExecContext(t.Context(), "CREATE TABLE t (x INTEGER)"); err != nil {
		t.Fatalf("create table: %v", err)
	}
	quiet := mustSettle(t, s.ckpt)

	// Idle: no commit, no checkpoint, however long the wait.
	time.Sleep(10 * checkpointDelay)
	if got := s.ckpt.runs.Load(); got != quiet {
		t.Fatalf("an idle store ran %d checkpoints", got-quiet)
	}

	for i := range 3 {
		if _, err := s.write.ExecContext(t.Context(), "INSERT INTO t VALUES (?)", i); err != nil {
			t.Fatalf("insert: %v", err)
		}
	}
	if got := mustSettle(t, s.ckpt); got == quiet {
		t.Fatal("no checkpoint ran after three commits")
	}
}

// mustSettle waits until the checkpointer has run no checkpoint for a while and returns
// how many it ran.
func mustSettle(tb testing.TB, c *checkpointer) int64 {
	tb.Helper()
	deadline := time.Now().Add(10 * time.Second)
	last := c.runs.Load()
	for time.Now().Before(deadline) {
		time.Sleep(5 * checkpointDelay)
		n := c.runs.Load()
		if n == last && n > 0 {
			return n
		}
		last = n
	}
	tb.Fatalf("the checkpointer did not settle (%d runs)", last)
	return 0
}

// TestWALStartsOverUnderLoad checks that the WAL starts over while writers commit
// without pause and readers read without pause. Without the writer's own checkpoint
// between group commits the file held every frame of the load, about 6 900; with it,
// 250–1 650 in eleven runs (a restart waits for a moment without a reader on an older
// snapshot, and four readers in tight loops leave few).
func TestWALStartsOverUnderLoad(t *testing.T) {
	t.Parallel()
	const restartFrames = 64
	path := filepath.Join(t.TempDir(), "skygate.db")
	s, err := open(t.Context(), path, testSealer(t), restartFrames)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer s.Close()
	if err := s.Migrate(t.Context()); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	// The migrations' frames are not the load's: start from an empty WAL file.
	if _, err := s.write.ExecContext(t.Context(), "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatalf("truncate WAL: %v", err)
	}
	read, err := openPool(t.Context(), path, readerParams(), 4, cachingDriver{})
	if err != nil {
		t.Fatalf("reader pool: %v", err)
	}
	defer read.Close()

	ctx, stop := context.WithCancel(t.Context())
	var readers sync.WaitGroup
	for range 4 {
		readers.Go(func() {
			for ctx.Err() == nil {
				var n int
				if err := read.QueryRowContext(ctx, "SELECT count(*) FROM accounts").Scan(&n); err != nil && ctx.Err() == nil {
					t.Errorf("read: %v", err)
					return
				}
			}
		})
	}
	var writers sync.WaitGroup
	for w := range 8 {
		writers.Go(func() {
			for i := range 400 {
				id := fmt.Sprintf("acc-%d-%d", w, i)
				a := &skygate.Account{ID: id, Name: id, Status: skygate.AccountActive,
					CreatedAt: time.Now(), UpdatedAt: time.Now()}
				if err := s.CreateAccount(ctx, a, nil); err != nil {
					t.Errorf("CreateAccount: %v", err)
					return
				}
			}
		})
	}
	writers.Wait()
	stop()
	readers.Wait()

	fi, err := os.Stat(path + "-wal")
	if err != nil {
		t.Fatalf("stat WAL: %v", err)
	}
	const frame = 4096 + 24
	frames := fi.Size() / frame
	t.Logf("the WAL file holds %d frames", frames)
	if frames > 50*restartFrames {
		t.Errorf("the WAL holds %d frames after the load, want at most %d: it did not start over", frames, 50*restartFrames)
	}
}
