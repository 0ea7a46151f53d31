package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// stopper stops serve: it drains when a signal asked for the stop, then shuts the HTTP
// servers down and stops the background work, and logs the last line, "stopped".
type stopper struct {
	// delay and timeout are SKYGATE_SHUTDOWN_DELAY and SKYGATE_SHUTDOWN_TIMEOUT.
	delay, timeout time.Duration
	log            *slog.Logger
	// began is when the stop began; zero while serve has not served.
	began time.Time
}

// work is what a stopper stops: the HTTP servers, the handler's Drain, and the
// background work, whose context is stopBG's and which closes done once it returned.
type work struct {
	servers []*http.Server
	drain   func()
	stopBG  context.CancelFunc
	done    <-chan struct{}
}

// stop stops w. When signalled (SIGTERM or SIGINT), w drains first: w.drain makes
// /readyz answer 503 and every response say Connection: close, while the listeners
// and the background work go on for the delay, so that load balancers stop sending
// new requests before the listeners close. Then, within the timeout together, the
// servers shut down (the listeners close, the requests in flight finish) and the
// background work finishes its round. Requests still in flight at the timeout are cut;
// background work still running is left to the process's end, which cuts it as a crash
// would (its claims are safe for another replica to retake). Without a signal (a
// listener or the background work failed) the delay is skipped.
//
// stop reports whether the background work returned, and an error when the timeout
// cut anything.
func (s *stopper) stop(signalled bool, w work) (bgReturned bool, err error) {
	s.began = time.Now()
	w.drain()
	if signalled {
		s.log.Info("draining", "delay", s.delay.String(), "timeout", s.timeout.String())
		time.Sleep(s.delay)
	}
	s.log.Info("shutting down", "timeout", s.timeout.String())
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	w.stopBG()
	var cut atomic.Bool
	var wg sync.WaitGroup
	for _, srv := range w.servers {
		wg.Go(func() {
			if srv.Shutdown(ctx) != nil {
				_ = srv.Close() // cutting what is left; the shutdown already failed
				cut.Store(true)
			}
		})
	}
	wg.Wait()
	if cut.Load() {
		s.log.Warn("shutdown timeout: cut the requests still in flight", "timeout", s.timeout.String())
		err = fmt.Errorf("requests were still in flight after SKYGATE_SHUTDOWN_TIMEOUT (%s)", s.timeout)
	}
	select {
	case <-w.done:
		return true, err
	case <-ctx.Done():
		select { // both may be ready
		case <-w.done:
			return true, err
		default:
		}
	}
	s.log.Warn("shutdown timeout: the background work is still running; the process's end cuts it", "timeout", s.timeout.String())
	return false, errors.Join(err, fmt.Errorf("the background work was still running after SKYGATE_SHUTDOWN_TIMEOUT (%s)", s.timeout))
}

// logStopped writes the last line of serve's log, with the time from the start of the
// stop, once the store has closed; nothing when serve did not serve. err is serve's
// result.
func (s *stopper) logStopped(err error) {
	if s.began.IsZero() {
		return
	}
	ms := float64(time.Since(s.began).Microseconds()) / 1000
	if err != nil {
		s.log.Error("stopped", "duration_ms", ms, "err", err)
		return
	}
	s.log.Info("stopped", "duration_ms", ms)
}
