package lifecycle

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"golang.org/x/sync/errgroup"
)

// Service is one part of the background work. Run works until ctx ends and then
// returns nil once the part has stopped: it starts no new work, and finishes the
// round or batch it has begun (or gives back what it holds) rather than abandoning it,
// so that the store can close after it. The caller bounds that wait (serve: with
// SKYGATE_SHUTDOWN_TIMEOUT); work cut by the process's end must be as safe as after a
// crash. Run returns earlier only when the part fails, with an error that says why.
// Its interval, logger and other settings are set when it is built, not passed to Run.
type Service interface {
	Run(ctx context.Context) error
}

// Func adapts a function to Service.
type Func func(ctx context.Context) error

// Run calls f(ctx).
func (f Func) Run(ctx context.Context) error { return f(ctx) }

// Run runs the services together until ctx ends or one of them fails, then stops every
// one and returns once all have returned: nil when ctx ended, else the first failure.
// A service that returns before ctx ended, even without an error, has failed.
//
// A failure stops the process rather than restarting the part: the caller shuts down
// and exits with the error, and the supervisor (systemd, Kubernetes) starts a fresh
// process, whose parts resume from the database, where all their state lives. A part
// restarted in place would hide a broken part behind a retry loop and would need a
// backoff policy of its own. Errors a part expects, such as a store outage during one
// round of periodic work, are not failures: the part logs them and goes on (Every).
func Run(ctx context.Context, services ...Service) error {
	g, ctx := errgroup.WithContext(ctx)
	for _, s := range services {
		g.Go(func() error {
			err := s.Run(ctx)
			if err == nil && ctx.Err() == nil {
				err = fmt.Errorf("lifecycle: %T returned before its context ended", s)
			}
			return err
		})
	}
	return g.Wait()
}

// Every returns a Service that calls work every interval (which must be positive),
// the first time one interval after Run starts, until ctx ends. A round runs to its
// end: its context carries ctx's values but not its end, and Run returns once the
// round in progress has. An error of work is logged with name at warning level (nil
// log: discarded) and the service goes on, so that the next round retries: periodic
// work outlives a store outage.
func Every(name string, interval time.Duration, log *slog.Logger, work func(context.Context) error) Service {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return Func(func(ctx context.Context) error {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-t.C:
			}
			if err := work(context.WithoutCancel(ctx)); err != nil {
				log.WarnContext(ctx, "periodic work failed", "work", name, "err", err)
			}
		}
	})
}
