package webhook_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/storetest"
	"github.com/skygate/skygate/internal/webhook"
)

// BenchmarkDispatch measures delivery throughput: b.N events are waiting in the outbox
// and one dispatcher (16 workers) sends them to a local receiver that answers 200 at
// once. Each delivery is a claim share, a signed POST and its recorded outcome.
func BenchmarkDispatch(b *testing.B) {
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			bd := setupOn(b, e, nil)
			mustWriteEvents(b, bd.store, bd.account, b.N, time.Now())
			d := webhook.NewDispatcher(webhook.DispatcherConfig{
				Store: bd.store, Box: bd.box, AllowPrivate: true, PollInterval: 5 * time.Millisecond,
			})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error)
			b.ResetTimer()
			start := time.Now()
			go func() { done <- d.Run(ctx) }()
			for bd.rc.distinct() < b.N {
				time.Sleep(time.Millisecond)
			}
			elapsed := time.Since(start)
			b.StopTimer()
			cancel()
			<-done
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "deliveries/s")
			if s := d.Stats(); s.Errors != 0 {
				b.Fatalf("stats = %+v", s)
			}
		})
	}
}

// BenchmarkEndToEnd measures the latency from a booking transition (issue, which
// writes booking.status.changed and pass.status.changed in its transaction) to the
// receiver getting booking.status.changed, one booking at a time, with a running
// dispatcher woken by Notify as the booking service does. It reports p50 and p99 of
// that latency and of the transition's commit alone, which is part of it.
func BenchmarkEndToEnd(b *testing.B) {
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			arrived := make(chan time.Time, 16)
			bd := setupOn(b, e, func(_ http.ResponseWriter, r *request, _ int) {
				if eventType(r.Body) == skygate.EventBookingStatusChanged {
					arrived <- time.Now()
				}
			})
			bookings := make([]*skygate.Booking, b.N)
			for i := range bookings {
				bookings[i] = storetest.MustCreateBooking(b, bd.store, bd.account)
			}
			d := webhook.NewDispatcher(webhook.DispatcherConfig{
				Store: bd.store, Box: bd.box, AllowPrivate: true,
			})
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			wg.Go(func() { _ = d.Run(ctx) })
			latencies := make([]time.Duration, 0, b.N)
			commits := make([]time.Duration, 0, b.N) // the transition's own transaction
			b.ResetTimer()
			for _, bk := range bookings {
				start := time.Now()
				_, err := bd.store.TransitionBooking(ctx, bk.AccountID, bk.ID, skygate.TriggerIssue, start, storetest.ApplyLikeService)
				if err != nil {
					b.Fatal(err)
				}
				commits = append(commits, time.Since(start))
				d.Notify()
				latencies = append(latencies, (<-arrived).Sub(start))
			}
			b.StopTimer()
			cancel()
			wg.Wait()
			b.ReportMetric(quantileMS(latencies, 0.5), "p50-ms")
			b.ReportMetric(quantileMS(latencies, 0.99), "p99-ms")
			b.ReportMetric(quantileMS(commits, 0.5), "commit-p50-ms")
			b.ReportMetric(quantileMS(commits, 0.99), "commit-p99-ms")
		})
	}
}

// quantileMS returns the q-quantile of ds in milliseconds.
func quantileMS(ds []time.Duration, q float64) float64 {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return float64(ds[int(q*float64(len(ds)-1))]) / float64(time.Millisecond)
}

// mustWriteEvents writes n events of the account to the outbox, a few hundred per
// transaction, through the booking store.
func mustWriteEvents(tb testing.TB, s skygate.Store, accountID string, n int, now time.Time) {
	tb.Helper()
	for n > 0 {
		batch := min(n, 500)
		events := make([]*skygate.Event, batch)
		for i := range events {
			events[i] = storetest.MustNewEvent(tb, accountID, skygate.EventBookingStatusChanged, now)
		}
		bk := storetest.NewBooking(accountID)
		if _, err := s.CreateBooking(context.Background(), storetest.NewRecord(bk, "k-"+bk.ID, "fp"), bk, events); err != nil {
			tb.Fatalf("CreateBooking: %v", err)
		}
		n -= batch
	}
}

// eventType returns the "type" of an envelope.
func eventType(body []byte) string {
	var env struct{ Type string }
	_ = json.Unmarshal(body, &env)
	return env.Type
}

// BenchmarkClaim measures the dispatcher's store round trip: one op claims up to 32
// due deliveries and records their success, which releases the next delivery of each
// object. "unordered" deliveries have no ordering key; "ordered" ones belong to
// objects of four events each, so three of every four due deliveries wait behind an
// earlier one and the claim must pass over them; "held" adds 500 objects whose first
// delivery waits for a retry an hour away, with four later ones each, the backlog of
// an endpoint that fails for some objects. It reports deliveries/s.
func BenchmarkClaim(b *testing.B) {
	const batch, objects, perObject = 32, 256, 4
	variants := []struct {
		name      string
		perObject int // 0: no ordering key
		held      int // objects held behind a retry
	}{
		{"unordered", 0, 0},
		{"ordered", perObject, 0},
		{"held", perObject, 500},
	}
	for _, e := range engines {
		for _, v := range variants {
			b.Run(e.name+"/"+v.name, func(b *testing.B) {
				bd := setupOn(b, e, nil)
				now := bd.clock.Now()
				if v.held > 0 {
					mustHoldObjects(b, bd.store, bd.account, v.held, perObject, now)
				}
				refill := func() {
					mustWriteObjectEvents(b, bd.store, bd.account, objects, max(1, v.perObject), v.perObject > 0, now)
				}
				refill()
				claimed := 0
				b.ResetTimer()
				for b.Loop() {
					t := bd.clock.Now()
					jobs, err := bd.store.ClaimWebhookDeliveries(context.Background(), t, t.Add(time.Minute), batch)
					if err != nil {
						b.Fatal(err)
					}
					if len(jobs) == 0 {
						b.StopTimer()
						refill()
						b.StartTimer()
						continue
					}
					outcomes := make([]*skygate.WebhookOutcome, len(jobs))
					for i, j := range jobs {
						outcomes[i] = &skygate.WebhookOutcome{DeliveryID: j.Delivery.ID, SubscriptionID: j.Delivery.SubscriptionID,
							Attempt: skygate.WebhookAttempt{DeliveryID: j.Delivery.ID, Attempt: j.Delivery.AttemptCount, At: t, StatusCode: 200},
							Status:  skygate.WebhookSucceeded}
					}
					if err := bd.store.CompleteWebhookDeliveries(context.Background(), outcomes); err != nil {
						b.Fatal(err)
					}
					claimed += len(jobs)
				}
				b.ReportMetric(float64(claimed)/b.Elapsed().Seconds(), "deliveries/s")
			})
		}
	}
}

// mustWriteObjectEvents writes perObject events for each of n new objects, in one
// transaction, the events of one object in a row; ordered false leaves them without an
// ordering key.
func mustWriteObjectEvents(tb testing.TB, s skygate.Store, accountID string, n, perObject int, ordered bool, now time.Time) {
	tb.Helper()
	events := make([]*skygate.Event, 0, n*perObject)
	for range n {
		key := skygate.BookingOrderingKey(skygate.NewID())
		for range perObject {
			e := storetest.MustNewEvent(tb, accountID, skygate.EventBookingStatusChanged, now)
			if ordered {
				e.OrderingKey = key
			}
			events = append(events, e)
		}
	}
	bk := storetest.NewBooking(accountID)
	if _, err := s.CreateBooking(context.Background(), storetest.NewRecord(bk, "k-"+bk.ID, "fp"), bk, events); err != nil {
		tb.Fatalf("CreateBooking: %v", err)
	}
}

// mustHoldObjects writes n objects of 1+perObject events each, due at now, and fails
// the first delivery of each, to be retried an hour after now.
func mustHoldObjects(tb testing.TB, s skygate.Store, accountID string, n, perObject int, now time.Time) {
	tb.Helper()
	mustWriteObjectEvents(tb, s, accountID, n, 1+perObject, true, now)
	for held := 0; held < n; {
		jobs, err := s.ClaimWebhookDeliveries(context.Background(), now, now.Add(time.Minute), 100)
		if err != nil || len(jobs) == 0 {
			tb.Fatalf("claim the first deliveries: %d claimed, %v", len(jobs), err)
		}
		outcomes := make([]*skygate.WebhookOutcome, len(jobs))
		for i, j := range jobs {
			outcomes[i] = &skygate.WebhookOutcome{DeliveryID: j.Delivery.ID, SubscriptionID: j.Delivery.SubscriptionID,
				Attempt: skygate.WebhookAttempt{DeliveryID: j.Delivery.ID, Attempt: j.Delivery.AttemptCount, At: now, StatusCode: 503},
				Status:  skygate.WebhookPending, NextAttemptAt: now.Add(time.Hour)}
		}
		if err := s.CompleteWebhookDeliveries(context.Background(), outcomes); err != nil {
			tb.Fatal(err)
		}
		held += len(jobs)
	}
}
