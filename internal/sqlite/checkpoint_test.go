package sqlite

import (
	"path/filepath"
	"testing"
	"time"
)

// TestCheckpointFollowsCommits checks that the checkpointer runs after a commit of the
// writer and stays asleep while nothing is written.
func TestCheckpointFollowsCommits(t *testing.T) {
	t.Parallel()
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "skygate.db"))
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
