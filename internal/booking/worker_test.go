package booking_test

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/booking"
	"github.com/skygate/skygate/internal/idempotency"
	"github.com/skygate/skygate/internal/qr"
	"github.com/skygate/skygate/internal/sqlite/sqlitetest"
	"github.com/skygate/skygate/internal/storetest"
)

// pngSignature starts every PNG file.
var pngSignature = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}

func wantPNG(tb testing.TB, b []byte) {
	tb.Helper()
	if !bytes.HasPrefix(b, pngSignature) {
		tb.Fatalf("not a PNG: % x", b[:min(len(b), 16)])
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		tb.Fatalf("decode PNG: %v", err)
	}
	if r := img.Bounds(); r.Dx() < 100 || r.Dx() != r.Dy() {
		tb.Fatalf("QR image is %v", r)
	}
}

func TestPassQR(t *testing.T) {
	t.Parallel()
	for _, payload := range []string{"SKYGATE:" + skygate.NewID() + ":ABCDEFGHJK", "x"} {
		png, err := qr.PNG(payload)
		storetest.MustNoError(t, err, "qr.PNG")
		wantPNG(t, png)
	}
}

// arrival sets a request's flight direction to arrival.
func arrival(r map[string]any) { r["flight"].(map[string]any)["direction"] = "arrival" }

// TestPassValidity checks the validity window in the hub's zone and in UTC.
func TestPassValidity(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tests := []struct {
		name     string
		r        map[string]any
		from, to time.Time
	}{
		{"hub at UTC+5", func() map[string]any { r := fullRequest(); r["service_date"] = "2025-06-03"; return r }(),
			time.Date(2025, 6, 2, 19, 0, 0, 0, time.UTC), time.Date(2025, 6, 4, 1, 0, 0, 0, time.UTC)},
		{"UTC", request(), time.Date(2025, 6, 3, 0, 0, 0, 0, time.UTC), time.Date(2025, 6, 4, 6, 0, 0, 0, time.UTC)},
		// With a scheduled time: a departure 4 h before until 2 h after (the grace for
		// delays), an arrival 1 h before until 6 h after.
		{"ScheduledDeparture", scheduled(ftName, "2025-06-03T10:00"), time.Date(2025, 6, 3, 6, 0, 0, 0, time.UTC), time.Date(2025, 6, 3, 12, 0, 0, 0, time.UTC)},
		{"ScheduledArrival", scheduled(ftName, "2025-06-03T10:00", arrival), time.Date(2025, 6, 3, 9, 0, 0, 0, time.UTC), time.Date(2025, 6, 3, 16, 0, 0, 0, time.UTC)},
		{"ScheduledArrivalLate", scheduled(ftName, "2025-06-03T21:30", arrival), time.Date(2025, 6, 3, 20, 30, 0, 0, time.UTC), time.Date(2025, 6, 4, 3, 30, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		bk := b.MustCreate(t, tt.r)
		_, err := b.svc.Simulate(t.Context(), b.account, bk.ID, "issue")
		storetest.MustNoError(t, err, "issue")
		p, err := b.svc.Pass(t.Context(), b.account, bk.ID)
		storetest.MustNoError(t, err, "Pass")
		if !p.ValidFrom.Equal(tt.from) || !p.ValidUntil.Equal(tt.to) {
			t.Errorf("%s: valid %v – %v, want %v – %v", tt.name, p.ValidFrom, p.ValidUntil, tt.from, tt.to)
		}
	}
}

func TestWorkerPurgesKeys(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.MustCreate(t, request())
	b.clock.Advance(idempotency.Lifetime)
	if st := b.MustRun(t); st.Purged != 0 {
		t.Fatalf("purged a key at its expiry: %+v", st)
	}
	b.clock.Advance(time.Microsecond)
	if st := b.MustRun(t); st.Purged != 1 {
		t.Fatalf("RunOnce = %+v, want one key purged", st)
	}
}

// TestWorkerPurgesQuotes: a quote is kept QuoteRetention after its expiry (a partner
// naming it is told it expired), then purged.
func TestWorkerPurgesQuotes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	bk := storetest.NewBooking(b.account)
	q := &skygate.Quote{ID: skygate.NewID(), AccountID: b.account, ClientID: bk.ClientID, FastTrackID: bk.FastTrackID,
		Price: skygate.Money{Amount: 1000, Currency: "EUR"}, ScheduledAt: bk.ServiceDate + "T10:00",
		PassengerTypes: skygate.PassengerTypesOf(bk.Passengers), Fingerprint: []byte{1},
		CreatedAt: b.clock.Now(), ExpiresAt: b.clock.Now().Add(skygate.QuoteTTL)}
	storetest.MustNoError(t, b.store.CreateQuote(t.Context(), q), "CreateQuote")
	b.clock.Advance(skygate.QuoteTTL + booking.QuoteRetention)
	if st := b.MustRun(t); st.PurgedQuotes != 0 {
		t.Fatalf("purged a quote at the end of its retention: %+v", st)
	}
	b.clock.Advance(time.Microsecond)
	if st := b.MustRun(t); st.PurgedQuotes != 1 {
		t.Fatalf("RunOnce = %+v, want one quote purged", st)
	}
	_, err := b.store.Quote(t.Context(), b.account, q.ID)
	storetest.WantCode(t, err, skygate.CodeNotFound)
}

// TestWorkerBatches checks that a backlog larger than a batch is drained.
func TestWorkerBatches(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for range 5 {
		b.MustCreate(t, request())
	}
	b.worker.Batch = 2
	if st := b.MustRun(t); st.Issued != 2 {
		t.Fatalf("RunOnce = %+v, want a batch of 2", st)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	b.worker.Interval = time.Hour
	go func() { done <- b.worker.Run(ctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, n, err := b.svc.List(t.Context(), b.account, "Issued", skygate.Page{})
		storetest.MustNoError(t, err, "List")
		if n == 5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Run issued %d of 5 bookings", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run = %v", err)
	}
}

// TestWorkerResumes checks that a second worker (a restarted or another replica) sees
// the work the first left.
func TestWorkerResumes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for range 3 {
		b.MustCreate(t, request())
	}
	w1 := booking.NewWorker(b.svc, nil)
	w1.Batch = 1
	if _, err := w1.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	w2 := booking.NewWorker(b.svc, nil)
	st, err := w2.RunOnce(t.Context())
	if err != nil || st.Issued != 2 {
		t.Fatalf("second worker = %+v, %v; want the 2 left", st, err)
	}
}

// BenchmarkCreateBooking measures a whole create (validation, fingerprint, key check
// and the write transaction) on each engine.
func BenchmarkCreateBooking(b *testing.B) {
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			bd := setupStore(b, e.open(b))
			body := mustJSON(b, fullRequest())
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				if _, _, err := bd.create(b, bd.account, "c", fmt.Sprint("key-", i), body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkIssue measures the worker issuing Pending bookings (the claim, the pass, the
// transition and its two events) on each engine, per booking. The bookings are created
// before the timer starts.
func BenchmarkIssue(b *testing.B) {
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			bd := setupStore(b, e.open(b))
			cmd := commandOf(b, bd.account, "c", "", mustJSON(b, fullRequest()))
			for i := range b.N {
				cmd.IdempotencyKey = fmt.Sprint("key-", i)
				if _, _, err := bd.svc.Create(b.Context(), cmd); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for issued := 0; issued < b.N; {
				st, err := bd.worker.RunOnce(b.Context())
				if err != nil {
					b.Fatal(err)
				}
				if st.Issued == 0 {
					b.Fatalf("issued %d of %d bookings", issued, b.N)
				}
				issued += st.Issued
			}
		})
	}
}

// BenchmarkCreateAndIssue measures what serve does per booking without HTTP: 32
// goroutines create bookings while the worker, woken by each creation, issues them;
// the timer stops once every booking is Issued. cpu-µs/op is the process's CPU time
// (user and system, with the commits' writes and fsyncs) per booking; on SQLite,
// with -cpu 1, it is the in-process part of the harness's booking scenario, and much
// steadier than the harness.
func BenchmarkCreateAndIssue(b *testing.B) {
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			s := e.open(b)
			svc := booking.New(booking.Config{Store: s, FastTracks: fastTracks{}, Clock: (&clock{t: Start}).Now})
			w := booking.NewWorker(svc, nil)
			account := storetest.MustCreateAccount(b, s).ID
			ctx, cancel := context.WithCancel(b.Context())
			done := make(chan error, 1)
			go func() { done <- w.Run(ctx) }()
			body := mustJSON(b, fullRequest())
			cmd := commandOf(b, account, "c", "", body)
			var seq atomic.Int64
			b.SetParallelism(32)
			cpu0 := cpuTime()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					cmd := cmd
					cmd.IdempotencyKey = fmt.Sprint("key-", seq.Add(1))
					if _, _, err := svc.Create(ctx, cmd); err != nil {
						b.Error(err)
						return
					}
				}
			})
			for {
				_, pending, err := s.ListBookings(ctx, account, skygate.BookingPending, skygate.Page{Limit: 1})
				if err != nil {
					b.Fatal(err)
				}
				if pending == 0 {
					break
				}
				time.Sleep(time.Millisecond)
			}
			b.StopTimer()
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Microsecond)/float64(b.N), "cpu-µs/op")
			cancel()
			if err := <-done; err != nil {
				b.Fatal(err)
			}
		})
	}
}

// claimGate is a store whose first ClaimBookings waits for the test before it claims,
// and reports whether its context had ended by then.
type claimGate struct {
	skygate.Store
	once             sync.Once
	entered, release chan struct{}
	ctxErr           error
}

func (g *claimGate) ClaimBookings(ctx context.Context, from skygate.BookingStatus, t skygate.Trigger, now time.Time, limit int, apply skygate.BookingApply) (int, error) {
	g.once.Do(func() {
		close(g.entered)
		<-g.release
		g.ctxErr = ctx.Err()
	})
	return g.Store.ClaimBookings(ctx, from, t, now, limit, apply)
}

// TestWorkerFinishesItsRunWhenStopped: a worker stopped while it claims bookings
// finishes the run (the batch commits) and then returns.
func TestWorkerFinishesItsRunWhenStopped(t *testing.T) {
	t.Parallel()
	gate := &claimGate{Store: sqlitetest.MustOpen(t), entered: make(chan struct{}), release: make(chan struct{})}
	b := setupStore(t, gate)
	for range 3 {
		b.MustCreate(t, request())
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- b.worker.Run(ctx) }()
	<-gate.entered
	cancel()
	close(gate.release)
	if err := <-done; err != nil {
		t.Fatalf("Run = %v", err)
	}
	if gate.ctxErr != nil {
		t.Errorf("the claim's context ended (%v) when Run's did", gate.ctxErr)
	}
	if _, n, err := b.svc.List(t.Context(), b.account, "Issued", skygate.Page{}); err != nil || n != 3 {
		t.Errorf("%d of 3 bookings issued when Run returned (%v)", n, err)
	}
}
