package booking

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/skygate/skygate"
)

// DefaultBatch is how many bookings one RunOnce step moves at most.
const DefaultBatch = 500

// Worker does what time does to bookings: it issues Pending bookings (generating the
// pass and the confirmation deadline), expires Issued bookings whose deadline passed,
// and purges expired idempotency keys. Its state lives only in the database, so any
// number of replicas may run one, and after a crash the next run resumes the work.
type Worker struct {
	svc *Service
	log *slog.Logger
	// Batch bounds each step of RunOnce; DefaultBatch when zero.
	Batch int
	wake  chan struct{}
}

// NewWorker returns a worker for the service's store and clock; log receives one line
// per failed step (nil discards).
func NewWorker(svc *Service, log *slog.Logger) *Worker {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Worker{svc: svc, log: log, Batch: DefaultBatch, wake: make(chan struct{}, 1)}
}

// Notify makes Run do its next run at once instead of at the next tick (a booking was
// just created). It never blocks.
func (w *Worker) Notify() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// RunStats counts what one RunOnce did.
type RunStats struct {
	Issued  int // Pending → Issued
	Expired int // Issued → Expired
	Purged  int // idempotency records deleted
}

// RunOnce issues due Pending bookings, expires Issued bookings past ConfirmBefore and
// purges idempotency records that expired, at the clock's current time. Each booking
// moves in its own transaction with its events (booking.status.changed Issued and
// pass.status.changed Active; booking.status.changed Expired and pass.status.changed
// Expired). A failing step does not stop the others; their errors are joined.
func (w *Worker) RunOnce(ctx context.Context) (RunStats, error) {
	var (
		st        RunStats
		errs      [3]error
		batch     = w.Batch
		now       = w.svc.now()
		bookings  = w.svc.store
		applyFunc = w.svc.apply
	)
	if batch <= 0 {
		batch = DefaultBatch
	}
	st.Issued, errs[0] = bookings.ClaimBookings(ctx, skygate.BookingPending, skygate.TriggerIssue, now, batch, applyFunc)
	st.Expired, errs[1] = bookings.ClaimBookings(ctx, skygate.BookingIssued, skygate.TriggerExpire, now, batch, applyFunc)
	st.Purged, errs[2] = bookings.PurgeIdempotencyRecords(ctx, now)
	for i, step := range []string{"issue bookings", "expire bookings", "purge idempotency keys"} {
		if errs[i] != nil {
			w.log.ErrorContext(ctx, "booking worker step failed", "step", step, "err", errs[i])
		}
	}
	return st, errors.Join(errs[:]...)
}

// Run calls RunOnce at once and then every interval until ctx is done, and returns
// nil then. A run that moved a full batch is followed at once by another, so a
// backlog drains without waiting for the ticker.
func (w *Worker) Run(ctx context.Context, interval time.Duration) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		st, err := w.RunOnce(ctx)
		if ctx.Err() != nil {
			return nil
		}
		batch := w.Batch
		if batch <= 0 {
			batch = DefaultBatch
		}
		if err == nil && (st.Issued >= batch || st.Expired >= batch) {
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		case <-w.wake:
		}
	}
}
