package lifecycle_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/skygate/skygate/internal/lifecycle"
)

// part is a Service that works until its context ends and records that it stopped.
type part struct {
	started, stopped atomic.Bool
	fail             error // returned at once instead of waiting, when set
}

func (p *part) Run(ctx context.Context) error {
	p.started.Store(true)
	if p.fail != nil {
		return p.fail
	}
	<-ctx.Done()
	p.stopped.Store(true)
	return nil
}

// runAsync starts lifecycle.Run and returns the channel of its result.
func runAsync(ctx context.Context, services ...lifecycle.Service) <-chan error {
	done := make(chan error, 1)
	go func() { done <- lifecycle.Run(ctx, services...) }()
	return done
}

// TestRunStopsEveryPartWhenContextEnds: when ctx ends every part returns, and Run
// returns nil only after all of them have.
func TestRunStopsEveryPartWhenContextEnds(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		parts := []*part{{}, {}, {}}
		ctx, cancel := context.WithCancel(t.Context())
		done := runAsync(ctx, parts[0], parts[1], parts[2])
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("Run returned %v before its context ended", err)
		default:
		}
		for i, p := range parts {
			if !p.started.Load() {
				t.Fatalf("part %d did not start", i)
			}
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Run = %v, want nil after the context ended", err)
		}
		for i, p := range parts {
			if !p.stopped.Load() {
				t.Errorf("part %d had not stopped when Run returned", i)
			}
		}
	})
}

// TestRunReportsFailure: a part that fails, or returns while its context is live,
// stops the others, and Run reports it once all have stopped.
func TestRunReportsFailure(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	for _, tc := range []struct {
		name string
		fail error
		want string
	}{
		{"error", boom, "boom"},
		{"early return", nil, "returned before its context ended"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			others := []*part{{}, {}}
			failing := lifecycle.Func(func(context.Context) error { return tc.fail })
			err := lifecycle.Run(t.Context(), others[0], failing, others[1])
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Run = %v, want an error containing %q", err, tc.want)
			}
			if tc.fail != nil && !errors.Is(err, tc.fail) {
				t.Errorf("Run = %v, does not wrap the part's error", err)
			}
			for i, p := range others {
				if !p.stopped.Load() {
					t.Errorf("part %d had not stopped when Run returned", i)
				}
			}
		})
	}
}

// TestEvery: the work runs once per interval, not at once; its errors are logged and
// the service goes on; it returns nil when its context ends and works no more.
func TestEvery(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var logs bytes.Buffer
		log := slog.New(slog.NewTextHandler(&logs, nil))
		var rounds atomic.Int32
		svc := lifecycle.Every("test work", time.Minute, log, func(context.Context) error {
			if rounds.Add(1) == 1 {
				return errors.New("store unavailable")
			}
			return nil
		})
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- svc.Run(ctx) }()

		time.Sleep(time.Minute / 2)
		synctest.Wait()
		if n := rounds.Load(); n != 0 {
			t.Fatalf("%d rounds before the first interval, want 0", n)
		}
		time.Sleep(3 * time.Minute)
		synctest.Wait()
		if n := rounds.Load(); n != 3 {
			t.Fatalf("%d rounds after 3.5 intervals, want 3 (a failed round does not stop the service)", n)
		}
		if got := logs.String(); strings.Count(got, "periodic work failed") != 1 ||
			!strings.Contains(got, `work="test work"`) || !strings.Contains(got, "store unavailable") {
			t.Errorf("log = %q, want the failed round once, with its name and error", got)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Run = %v, want nil after the context ended", err)
		}
		time.Sleep(time.Hour)
		if n := rounds.Load(); n != 3 {
			t.Errorf("%d rounds after Run returned, want 3", n)
		}
	})
}

// TestEveryFinishesItsRound: when ctx ends during a round, the round goes on with a
// context that has not ended, Run returns only once the round has, and no round
// follows.
func TestEveryFinishesItsRound(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		entered, release := make(chan struct{}), make(chan struct{})
		var rounds atomic.Int32
		var roundErr atomic.Value
		svc := lifecycle.Every("batch", time.Minute, nil, func(ctx context.Context) error {
			if rounds.Add(1) > 1 {
				return nil
			}
			close(entered)
			<-release
			roundErr.Store(fmt.Sprint(ctx.Err()))
			return nil
		})
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- svc.Run(ctx) }()
		<-entered
		cancel()
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("Run returned %v during its round", err)
		default:
		}
		close(release)
		if err := <-done; err != nil {
			t.Fatalf("Run = %v, want nil", err)
		}
		if got := roundErr.Load(); got != "<nil>" {
			t.Errorf("the round's context ended (%v) when Run's did", got)
		}
		time.Sleep(time.Hour)
		if n := rounds.Load(); n != 1 {
			t.Errorf("%d rounds, want 1: none after the context ended", n)
		}
	})
}
