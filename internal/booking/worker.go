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
// purges expired idempotency keys and quotes a day after they expired
// (QuoteRetention), seals what older releases stored in clear and removes passengers'
// personal data after the retention. Its state lives only in the
// database, so any number of replicas may run one, and after a crash the next run
// resumes the work. A booking created through its Service wakes it to be issued at
// once.
type Worker struct {
	svc *Service
	log *slog.Logger
	// Interval is the time between two full runs (DefaultInterval when zero).
	Interval time.Duration
	// Batch bounds each step of RunOnce; DefaultBatch when zero.
	Batch int
}

// DefaultInterval is the worker's Interval unless set.
const DefaultInterval = time.Second

// notifySpacing is the least time between the starts of two issue runs that new
// bookings trigger: at most 200 a second between ticks, and at most this much added
// to the time a booking stays Pending. A quiet worker issues a new booking at once;
// under load, the bookings created meanwhile wait for the next run and share its
// transaction, instead of each paying for a claim and a commit of its own.
const notifySpacing = 5 * time.Millisecond

// NewWorker returns a worker for the service's store and clock; log receives one line
// per failed step (nil discards).
func NewWorker(svc *Service, log *slog.Logger) *Worker {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Worker{svc: svc, log: log, Batch: DefaultBatch}
}

// wakeWorkers makes a running Worker of s issue Pending bookings now (or notifySpacing
// after its last issue run) instead of at the next tick: a booking was just created.
// It never blocks.
func (s *Service) wakeWorkers() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// RunStats counts what one RunOnce did.
type RunStats struct {
	Issued  int // Pending → Issued
	Expired int // Issued → Expired
	Purged  int // idempotency records deleted
	// PurgedQuotes counts quotes deleted (QuoteRetention after they expired).
	PurgedQuotes int
	Sealed       int // rows written in clear, sealed (BookingStore.SealLegacyData)
	Erased       int // bookings whose passengers' personal data was removed
}

// RunOnce issues due Pending bookings, expires Issued bookings past ConfirmBefore,
// purges idempotency records that expired and a batch of the quotes that expired
// QuoteRetention ago, seals rows written in clear and removes the
// passengers' personal data of bookings whose service date ended the retention ago, at
// the clock's current time. A booking moves in one transaction with its events
// (booking.status.changed Issued and pass.status.changed Active; booking.status.changed
// Expired and pass.status.changed Expired), which it may share with other bookings of
// the step. Each step but the purge does at most a batch. A failing step does not stop
// the others; their errors are joined.
func (w *Worker) RunOnce(ctx context.Context) (RunStats, error) {
	var (
		st   RunStats
		errs [6]error
		now  = w.svc.now()
	)
	st.Issued, errs[0] = w.claim(ctx, skygate.BookingPending, skygate.TriggerIssue, now)
	st.Expired, errs[1] = w.claim(ctx, skygate.BookingIssued, skygate.TriggerExpire, now)
	st.Purged, errs[2] = w.svc.store.PurgeIdempotencyRecords(ctx, now)
	// Sealing first: a booking written in clear is removed once sealed.
	st.Sealed, errs[3] = w.svc.store.SealLegacyData(ctx, w.batch())
	st.Erased, errs[4] = w.svc.store.ErasePassengerData(ctx, skygate.PassengerDataCutoff(now, w.svc.retention), now, w.batch())
	if w.svc.quotes != nil {
		st.PurgedQuotes, errs[5] = w.svc.quotes.PurgeQuotes(ctx, now.Add(-QuoteRetention), w.batch())
	}
	for i, step := range []string{stepIssue, "expire bookings", "purge idempotency keys", "seal legacy data", "erase passenger data", "purge quotes"} {
		w.logFailed(ctx, step, errs[i])
	}
	return st, errors.Join(errs[:]...)
}

// QuoteRetention is how long after its expiry the worker keeps a quote: a partner that
// names it meanwhile is told it expired (QuoteExpired) rather than that it does not
// exist; after that it is purged and unknown.
const QuoteRetention = 24 * time.Hour

// stepIssue names the issue step in the log.
const stepIssue = "issue bookings"

// claim moves up to a batch of bookings in status from by trigger t at now.
func (w *Worker) claim(ctx context.Context, from skygate.BookingStatus, t skygate.Trigger, now time.Time) (int, error) {
	return w.svc.store.ClaimBookings(ctx, from, t, now, w.batch(), w.svc.apply)
}

// logFailed logs a step's error, if any.
func (w *Worker) logFailed(ctx context.Context, step string, err error) {
	if err != nil {
		w.log.ErrorContext(ctx, "booking worker step failed", "step", step, "err", err)
	}
}

// Run calls RunOnce at once and then every Interval until ctx is done, and returns
// nil then. A run that moved a full batch is followed at once by another, so a
// backlog drains without waiting for the ticker. Between ticks, a booking created
// through the Service triggers the issue step alone: expiry and the purge of
// idempotency keys are due by the clock, not by new bookings, so they wait for the
// tick. When ctx ends, the run in progress finishes (its context carries ctx's values
// but not its end) and Run returns: a batch it claimed commits rather than rolling
// back. Run is a lifecycle.Service.
func (w *Worker) Run(ctx context.Context) error {
	interval := w.Interval
	if interval <= 0 {
		interval = DefaultInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for all := true; ; {
		lastIssue, run := time.Now(), w.issue
		if all {
			run = w.RunOnce
		}
		st, err := run(context.WithoutCancel(ctx))
		if ctx.Err() != nil {
			return nil
		}
		batch := w.batch()
		if err == nil && (st.Issued >= batch || st.Expired >= batch) {
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			all = true
		case <-w.svc.wake:
			all = false
			if wait := notifySpacing - time.Since(lastIssue); wait > 0 {
				select {
				case <-ctx.Done():
					return nil
				case <-time.After(wait):
				}
			}
		}
	}
}

// issue is RunOnce's first step alone.
func (w *Worker) issue(ctx context.Context) (RunStats, error) {
	n, err := w.claim(ctx, skygate.BookingPending, skygate.TriggerIssue, w.svc.now())
	w.logFailed(ctx, stepIssue, err)
	return RunStats{Issued: n}, err
}

func (w *Worker) batch() int {
	if w.Batch <= 0 {
		return DefaultBatch
	}
	return w.Batch
}
