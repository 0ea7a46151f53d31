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
