package webhook

import (
	"bytes"
	"cmp"
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/seal"
)

// Dispatcher defaults.
const (
	DefaultWorkers      = 16
	DefaultBatchSize    = 32
	DefaultLease        = 30 * time.Second
	DefaultPollInterval = time.Second
	// completeTimeout bounds the write of a batch of outcomes, which runs even while
	// the dispatcher shuts down.
	completeTimeout = 10 * time.Second
)

// DispatcherConfig is what a Dispatcher needs. Zero values take the defaults.
type DispatcherConfig struct {
	Store skygate.WebhookStore
	// Box opens the sealed secrets (the same Box as the Service's).
	Box *seal.Box
	// Client sends the requests; nil is NewClient(ClientOptions{AllowPrivate}).
	Client *http.Client
	// AllowPrivate is used only to build the default Client.
	AllowPrivate bool
	// Clock is the time source for due times, signatures and the attempt log; nil is
	// time.Now. Latency is measured on the monotonic clock.
	Clock  skygate.Clock
	Logger *slog.Logger
	// Workers bounds the requests in flight (DefaultWorkers).
	Workers int
	// BatchSize bounds the deliveries claimed in one transaction (DefaultBatchSize).
	BatchSize int
	// Lease is how long a claimed delivery is reserved for this dispatcher; when it
	// crashes, another one retries after the lease (DefaultLease). It is raised to twice
	// the Client's timeout when shorter.
	Lease time.Duration
	// PollInterval is how often Run looks for due deliveries without a Notify, which
	// picks up retries and other replicas' events (DefaultPollInterval).
	PollInterval time.Duration
	// Schedule is the wait after each failed attempt (DefaultSchedule).
	Schedule []time.Duration
	// Jitter is the spread of each wait, ±Jitter of it (DefaultJitter; negative: none).
	Jitter float64
	// DisableAfter is the 72-hour rule (DefaultDisableAfter).
	DisableAfter time.Duration
	// SandboxDeployment is true in a sandbox deployment: the notices of subscriptions
	// it disables are not live (WebhookOutcome.SandboxDeployment).
	SandboxDeployment bool
	// MaxRetryAfter caps a receiver's Retry-After (DefaultMaxRetryAfter).
	MaxRetryAfter time.Duration
	// Rand returns numbers in [0, 1) for the jitter; nil is math/rand/v2.
	Rand func() float64
	// UserAgent is sent with every request.
	UserAgent string
	// Tracer, when not nil, traces every attempt, whose request then carries a
	// traceparent header (trace.go); nil sends none.
	Tracer trace.TracerProvider
}

// Stats counts what a Dispatcher did since it started.
type Stats struct {
	Claimed   uint64 // attempts started
	Succeeded uint64 // deliveries that got a 2xx answer
	Retried   uint64 // failed attempts with another one scheduled
	Failed    uint64 // deliveries that failed for good
	Disabled  uint64 // 410 answers that deactivated a subscription
	Errors    uint64 // store errors (claims and outcomes that could not be written)
	InFlight  int64  // requests in flight now
}

// Dispatcher sends the pending deliveries of the outbox. Several dispatchers, in one
// process or in several replicas, may run against one store: the store's claim gives
// each delivery to one of them for a lease. Delivery is at least once: a dispatcher
// that dies after sending and before recording the outcome leaves the delivery to be
// sent again, with the same webhook-id, when its lease ends.
type Dispatcher struct {
	c      DispatcherConfig
	now    skygate.Clock
	log    *slog.Logger
	rnd    func() float64
	tracer trace.Tracer // nil: no spans
	wake   chan struct{}
	freed  chan struct{}
	counts struct {
		claimed, succeeded, retried, failed, disabled, errors atomic.Uint64
		inFlight                                              atomic.Int64
	}
}

// NewDispatcher returns a Dispatcher; Store and Box are required.
func NewDispatcher(c DispatcherConfig) *Dispatcher {
	if c.Client == nil {
		c.Client = NewClient(ClientOptions{AllowPrivate: c.AllowPrivate})
	}
	if c.Workers <= 0 {
		c.Workers = DefaultWorkers
	}
	if c.BatchSize <= 0 {
		c.BatchSize = DefaultBatchSize
	}
	if c.Lease <= 0 {
		c.Lease = DefaultLease
	}
	// A lease that ends while the request may still be in flight would let another
	// dispatcher send the same delivery at the same time: keep it well above the
	// client's timeout.
	if floor := 2 * cmp.Or(c.Client.Timeout, Timeout); c.Lease < floor {
		c.Lease = floor
	}
	if c.PollInterval <= 0 {
		c.PollInterval = DefaultPollInterval
	}
	if c.Schedule == nil {
		c.Schedule = DefaultSchedule
	}
	if c.Jitter == 0 {
		c.Jitter = DefaultJitter
	}
	if c.DisableAfter <= 0 {
		c.DisableAfter = DefaultDisableAfter
	}
	if c.MaxRetryAfter <= 0 {
		c.MaxRetryAfter = DefaultMaxRetryAfter
	}
	if c.UserAgent == "" {
		c.UserAgent = "Skygate-Webhooks/1"
	}
	d := &Dispatcher{c: c, now: c.Clock, log: c.Logger, rnd: c.Rand,
		wake: make(chan struct{}, 1), freed: make(chan struct{}, 1)}
	if d.now == nil {
		d.now = time.Now
	}
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	if d.rnd == nil {
		d.rnd = rand.Float64
	}
	if c.Tracer != nil {
		d.tracer = c.Tracer.Tracer("github.com/skygate/skygate/internal/webhook")
	}
	return d
}

// Notify wakes Run to look for due deliveries now. Call it after committing a
// transaction that wrote events; it never blocks.
func (d *Dispatcher) Notify() { signal(d.wake) }

// Stats returns the counters.
func (d *Dispatcher) Stats() Stats {
	return Stats{
		Claimed:   d.counts.claimed.Load(),
		Succeeded: d.counts.succeeded.Load(),
		Retried:   d.counts.retried.Load(),
		Failed:    d.counts.failed.Load(),
		Disabled:  d.counts.disabled.Load(),
		Errors:    d.counts.errors.Load(),
		InFlight:  d.counts.inFlight.Load(),
	}
}

// Run sends due deliveries until ctx ends, keeping up to Workers requests in flight:
// it claims deliveries for its free workers (once a quarter of them are free, so that
// claims come in batches under load), and looks again when workers free up, on
// Notify, when its own outcomes finish deliveries (releasing the next ones of their
// objects), and every PollInterval. Outcomes are written in batches by one recorder, so
// that a commit serves many deliveries. When ctx ends Run stops claiming, lets the
// requests in flight finish (each is bounded by the client's timeout), records their
// outcomes and returns nil.
func (d *Dispatcher) Run(ctx context.Context) error {
	ticker := time.NewTicker(d.c.PollInterval)
	defer ticker.Stop()
	outcomes := make(chan *skygate.WebhookOutcome, d.c.Workers)
	var recorder sync.WaitGroup
	recorder.Go(func() { d.record(ctx, outcomes) })
	var workers sync.WaitGroup
	defer func() {
		workers.Wait()
		close(outcomes)
		recorder.Wait()
	}()
	slots := make(chan struct{}, d.c.Workers)
	threshold := max(1, d.c.Workers/4)
	for {
		free := cap(slots) - len(slots)
		want := 0
		if free >= threshold || free == cap(slots) {
			want = min(free, d.c.BatchSize)
		}
		claimed := 0
		if want > 0 {
			jobs, err := d.claim(ctx, want)
			if err != nil && ctx.Err() == nil {
				d.log.ErrorContext(ctx, "webhook: claim deliveries", "error", err)
			}
			for _, j := range jobs {
				slots <- struct{}{}
				workers.Go(func() {
					outcomes <- d.attempt(ctx, j) // a slow recorder holds the worker: backpressure
					<-slots
					signal(d.freed)
				})
			}
			claimed = len(jobs)
		}
		if ctx.Err() != nil {
			return nil
		}
		// Saturated: too few workers were free, or the claim took all it asked for, so
		// more may be due. Claim again as soon as enough workers are free.
		saturated := want == 0 || claimed == want
		if saturated && claimed > 0 && cap(slots)-len(slots) >= threshold {
			continue
		}
		var freed <-chan struct{}
		if saturated {
			freed = d.freed
		}
		select {
		case <-ctx.Done():
			return nil
		case <-d.wake:
		case <-freed:
		case <-ticker.C:
		}
	}
}

// RunOnce claims one batch of due deliveries, sends them with at most Workers in
// flight, records every outcome in one transaction and returns how many it sent.
// Tests and benchmarks drive the dispatcher with it; Run is the production loop.
func (d *Dispatcher) RunOnce(ctx context.Context) (int, error) {
	jobs, err := d.claim(ctx, d.c.BatchSize)
	if err != nil {
		return 0, err
	}
	outcomes := make([]*skygate.WebhookOutcome, len(jobs))
	var wg sync.WaitGroup
	slots := make(chan struct{}, d.c.Workers)
	for i, j := range jobs {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			outcomes[i] = d.attempt(ctx, j)
		})
	}
	wg.Wait()
	d.complete(ctx, outcomes)
	return len(jobs), nil
}

// claim leases up to n due deliveries.
func (d *Dispatcher) claim(ctx context.Context, n int) ([]*skygate.WebhookJob, error) {
	now := d.now()
	jobs, err := d.c.Store.ClaimWebhookDeliveries(ctx, now, now.Add(d.c.Lease), n)
	if err != nil {
		if ctx.Err() == nil { // a claim cut short by shutdown is no store error
			d.counts.errors.Add(1)
		}
		return nil, err
	}
	d.counts.claimed.Add(uint64(len(jobs)))
	return jobs, nil
}

// maxRecordBatch bounds the outcomes written in one transaction.
const maxRecordBatch = 128

// record writes the outcomes that arrive on in, batching those that queued up while
// the previous batch was written, until in is closed. A batch that finished a
// delivery (succeeded or failed for good) wakes Run: the store may now let the next
// delivery of the same object go (ClaimWebhookDeliveries), which should not wait for
// the next poll.
func (d *Dispatcher) record(ctx context.Context, in <-chan *skygate.WebhookOutcome) {
	batch := make([]*skygate.WebhookOutcome, 0, maxRecordBatch)
	for o := range in {
		batch = append(batch[:0], o)
	more:
		for len(batch) < maxRecordBatch {
			select {
			case o, ok := <-in:
				if !ok {
					break more
				}
				batch = append(batch, o)
			default:
				break more
			}
		}
		if d.complete(ctx, batch) && slices.ContainsFunc(batch, finished) {
			signal(d.wake)
		}
	}
}

// finished reports whether o ends its delivery.
func finished(o *skygate.WebhookOutcome) bool { return o.Status != skygate.WebhookPending }

// complete writes outcomes, even while the dispatcher shuts down, and reports whether
// they were written. If the write fails the leases end and other attempts follow:
// at-least-once holds.
func (d *Dispatcher) complete(ctx context.Context, outcomes []*skygate.WebhookOutcome) bool {
	if len(outcomes) == 0 {
		return false
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), completeTimeout)
	defer cancel()
	if err := d.c.Store.CompleteWebhookDeliveries(ctx, outcomes); err != nil {
		d.counts.errors.Add(1)
		d.log.ErrorContext(ctx, "webhook: record delivery outcomes", "error", err, "outcomes", len(outcomes))
		return false
	}
	return true
}

// attempt sends the request of a claimed delivery and decides the outcome. The request
// is not cut short by ctx: a shutdown waits for it.
func (d *Dispatcher) attempt(ctx context.Context, j *skygate.WebhookJob) *skygate.WebhookOutcome {
	ctx = context.WithoutCancel(ctx)
	d.counts.inFlight.Add(1)
	defer d.counts.inFlight.Add(-1)
	ctx, span := d.startSpan(ctx, j)
	o := d.send(ctx, j)
	endSpan(span, o)
	switch o.Status {
	case skygate.WebhookSucceeded:
		d.counts.succeeded.Add(1)
	case skygate.WebhookPending:
		d.counts.retried.Add(1)
	case skygate.WebhookFailed:
		d.counts.failed.Add(1)
	}
	if o.Disable {
		d.counts.disabled.Add(1)
	}
	return o
}

// send makes the request and decides the outcome.
func (d *Dispatcher) send(ctx context.Context, j *skygate.WebhookJob) *skygate.WebhookOutcome {
	del, sub := j.Delivery, j.Subscription
	at := d.now()
	o := &skygate.WebhookOutcome{
		DeliveryID:     del.ID,
		SubscriptionID: del.SubscriptionID,
		Attempt:        skygate.WebhookAttempt{DeliveryID: del.ID, Attempt: del.AttemptCount, At: at},
		FailingCutoff:  at.Add(-d.c.DisableAfter),

		SandboxDeployment: d.c.SandboxDeployment,
	}
	keys, err := openSecrets(d.c.Box, sub, at)
	if err != nil {
		d.log.ErrorContext(ctx, "webhook: open signing secret", "error", err, "subscription_id", sub.ID)
		o.Attempt.Error = "internal error: the request could not be signed"
		d.fail(o, 0, nil)
		return o
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, sub.URL, bytes.NewReader(j.Body))
	if err != nil {
		o.Attempt.Error = "the URL cannot be requested"
		d.fail(o, 0, nil)
		return o
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", d.c.UserAgent)
	SetHeaders(req.Header, keys, del.MessageID, at, j.Body)
	if d.tracer != nil {
		injectTraceparent(ctx, req.Header)
	}

	start := time.Now()
	resp, err := d.c.Client.Do(req)
	if err == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, MaxResponseBytes))
		_ = resp.Body.Close() // the body is read; the status decides
	}
	o.Attempt.LatencyMS = time.Since(start).Milliseconds()
	switch {
	case err != nil:
		o.Attempt.Error = describe(err, cmp.Or(d.c.Client.Timeout, Timeout))
		d.fail(o, 0, nil)
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		o.Attempt.StatusCode = resp.StatusCode
		o.Status = skygate.WebhookSucceeded
	default:
		o.Attempt.StatusCode = resp.StatusCode
		o.Attempt.Error = statusError(resp.StatusCode)
		d.fail(o, resp.StatusCode, resp.Header)
	}
	return o
}

// fail decides what follows a failed attempt: 410 Gone fails the delivery and
// disables the subscription; otherwise the next attempt follows the schedule, later
// if the receiver's Retry-After asks for more, and after the last one the delivery
// is failed.
func (d *Dispatcher) fail(o *skygate.WebhookOutcome, code int, h http.Header) {
	if code == http.StatusGone {
		o.Status, o.Disable = skygate.WebhookFailed, true
		return
	}
	wait, again := backoff(d.c.Schedule, d.c.Jitter, o.Attempt.Attempt, d.rnd)
	if !again {
		o.Status = skygate.WebhookFailed
		return
	}
	if ra, ok := retryAfter(h, o.Attempt.At); ok {
		wait = max(wait, min(ra, d.c.MaxRetryAfter))
	}
	o.Status, o.NextAttemptAt = skygate.WebhookPending, o.Attempt.At.Add(wait)
}

// signal does a non-blocking send on a one-slot channel.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}
