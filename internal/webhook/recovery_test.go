package webhook_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/storetest"
	"github.com/skygate/skygate/internal/webhook"
)

// crashingStore stands for a dispatcher process that dies after sending a request and
// before recording its outcome.
type crashingStore struct{ skygate.WebhookStore }

func (crashingStore) CompleteWebhookDeliveries(context.Context, []*skygate.WebhookOutcome) error {
	return errors.New("the process died")
}

// TestRestartAfterClaim: a dispatcher claims and dies before sending; once the lease
// ends another dispatcher delivers.
func TestRestartAfterClaim(t *testing.T) {
	t.Parallel()
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			b := setupOn(t, e, nil)
			d := b.mustTest(t)
			now := b.clock.Now()
			jobs, err := b.store.ClaimWebhookDeliveries(t.Context(), now, now.Add(webhook.DefaultLease), 10)
			if err != nil || len(jobs) != 1 {
				t.Fatalf("claim by the crashing dispatcher: %v, %v", jobs, err)
			}
			b.mustRunOnce(t, 0) // leased
			b.clock.Advance(webhook.DefaultLease - time.Second)
			b.mustRunOnce(t, 0)
			b.clock.Advance(time.Second)
			b.mustRunOnce(t, 1)
			got := b.mustDelivery(t, d.ID)
			if got.Status != skygate.WebhookSucceeded || got.AttemptCount != 2 || len(got.Attempts) != 1 || got.Attempts[0].Attempt != 2 {
				t.Fatalf("delivery = %+v, attempts %+v", got, got.Attempts)
			}
			if n := len(b.rc.requests()); n != 1 {
				t.Fatalf("received %d requests", n)
			}
		})
	}
}

// TestRestartAfterSend: a dispatcher sends and dies before recording; the delivery is
// sent again with the same webhook-id, and the receiver's dedupe sees one message.
func TestRestartAfterSend(t *testing.T) {
	t.Parallel()
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			b := setupOn(t, e, nil)
			d := b.mustTest(t)
			crashed := b.newDispatcher(crashingStore{b.store})
			if n, err := crashed.RunOnce(t.Context()); n != 1 || err != nil {
				t.Fatalf("crashing RunOnce = %d, %v", n, err)
			}
			b.mustRunOnce(t, 0)
			b.clock.Advance(webhook.DefaultLease)
			b.mustRunOnce(t, 1)
			reqs := b.rc.requests()
			if len(reqs) != 2 || reqs[0].ID != reqs[1].ID || reqs[0].ID != d.MessageID {
				t.Fatalf("requests = %+v, want the same message twice", reqs)
			}
			for _, r := range reqs {
				mustVerify(t, r, secret1)
			}
			if ids := b.rc.ids(); len(ids) != 1 {
				t.Fatalf("distinct webhook-ids = %v", ids)
			}
			if got := b.mustDelivery(t, d.ID); got.Status != skygate.WebhookSucceeded {
				t.Fatalf("delivery = %+v", got)
			}
			if s := crashed.Stats(); s.Errors != 1 {
				t.Fatalf("crashed stats = %+v", s)
			}
		})
	}
}

// TestShutdownFinishesInFlight: cancelling Run lets the request in flight finish and
// records its outcome before Run returns.
func TestShutdownFinishesInFlight(t *testing.T) {
	t.Parallel()
	arrived, release := make(chan struct{}), make(chan struct{})
	b := setup(t, func(http.ResponseWriter, *request, int) {
		close(arrived)
		<-release
	})
	d := b.mustTest(t)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() { done <- b.disp.Run(ctx) }()
	<-arrived
	cancel()
	select {
	case <-done:
		t.Fatal("Run returned with a request in flight")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got := b.mustDelivery(t, d.ID); got.Status != skygate.WebhookSucceeded {
		t.Fatalf("delivery after shutdown = %+v", got)
	}
}

// TestNotifyWakesRun: with polling effectively off, Notify alone makes Run send a new
// delivery at once.
func TestNotifyWakesRun(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	d := webhook.NewDispatcher(webhook.DispatcherConfig{
		Store: b.store, Box: b.box, AllowPrivate: true, Clock: b.clock.Now, PollInterval: time.Hour,
	})
	svc := webhook.NewService(webhook.Config{
		Store: b.store, Box: b.box, Clock: b.clock.Now, Notify: d.Notify,
		Policy: webhook.Policy{AllowHTTP: true, AllowPrivate: true},
	})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() { done <- d.Run(ctx) }()
	defer func() { cancel(); <-done }()
	time.Sleep(20 * time.Millisecond) // let Run finish its first, empty claim
	if _, err := svc.Test(t.Context(), b.account, b.sub.ID, true); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, func() bool { return len(b.rc.requests()) == 1 })
}

// TestConcurrentDispatchers: two dispatchers drain one store; no delivery is ever
// in flight twice at once, and, with no lease expiring, each is sent exactly once.
func TestConcurrentDispatchers(t *testing.T) {
	t.Parallel()
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			var (
				mu       sync.Mutex
				inFlight = map[string]bool{}
				overlaps atomic.Int32
			)
			b := setupOn(t, e, func(_ http.ResponseWriter, r *request, _ int) {
				mu.Lock()
				if inFlight[r.ID] {
					overlaps.Add(1)
				}
				inFlight[r.ID] = true
				mu.Unlock()
				time.Sleep(2 * time.Millisecond)
				mu.Lock()
				delete(inFlight, r.ID)
				mu.Unlock()
			})
			const events = 100
			for range events {
				b.mustTest(t)
			}
			ctx, cancel := context.WithCancel(t.Context())
			var wg sync.WaitGroup
			for range 2 {
				d := b.newDispatcher(b.store)
				wg.Go(func() { _ = d.Run(ctx) })
			}
			waitFor(t, 30*time.Second, func() bool { return len(b.rc.ids()) == events })
			time.Sleep(20 * time.Millisecond)
			cancel()
			wg.Wait()
			if n := overlaps.Load(); n != 0 {
				t.Fatalf("%d requests overlapped another of the same delivery", n)
			}
			for id, n := range b.rc.ids() {
				if n != 1 {
					t.Errorf("%s received %d times", id, n)
				}
			}
		})
	}
}

// TestNothingLost writes booking events for several accounts while a receiver fails
// some attempts and one dispatcher dies mid-way without recording what it sent; with
// the clock moving, every event reaches its account's receiver at least once with a
// valid signature, and every delivery ends succeeded.
func TestNothingLost(t *testing.T) {
	t.Parallel()
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			// Each message fails its first 0, 1 or 2 attempts.
			b := setupOn(t, e, func(w http.ResponseWriter, r *request, n int) {
				if n <= int(r.ID[0])%3 {
					w.WriteHeader(http.StatusBadGateway)
				}
			})
			accounts := []string{b.account}
			for range 2 {
				acc := storetest.MustCreateAccount(t, b.store).ID
				mustCreate(t, b.svc, acc, b.rc.URL+"/"+acc, secret1)
				accounts = append(accounts, acc)
			}

			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var wg sync.WaitGroup
			crashCtx, crash := context.WithCancel(ctx)
			defer crash()
			crashing := b.newDispatcher(crashingStore{b.store})
			wg.Go(func() { _ = crashing.Run(crashCtx) })
			wg.Go(func() { _ = b.disp.Run(ctx) })
			wg.Go(func() { // time passes: retries and expired leases come due
				for ctx.Err() == nil {
					time.Sleep(2 * time.Millisecond)
					b.clock.Advance(10 * time.Second)
				}
			})

			want := map[string]bool{}
			for i := range 15 {
				acc := accounts[i%len(accounts)]
				bk := storetest.MustCreateBooking(t, b.store, acc)
				storetest.MustTransition(t, b.store, bk, b.clock.Now(), skygate.TriggerIssue, skygate.TriggerConfirm)
				b.disp.Notify()
				if i == 5 {
					crash()
				}
			}
			for _, ev := range storetest.MustEventsAfter(t, b.store, 0) {
				want[ev.ID] = true
			}
			waitFor(t, 60*time.Second, func() bool {
				got := b.rc.ids()
				for id := range want {
					if got[id] == 0 {
						return false
					}
				}
				return allSucceeded(t, b, accounts)
			})
			cancel()
			wg.Wait()
			if len(want) != 15*3 {
				t.Fatalf("%d events written, want 45", len(want))
			}
			for _, r := range b.rc.requests() {
				mustVerify(t, r, secret1)
			}
		})
	}
}

// allSucceeded reports whether every delivery of the accounts' subscriptions has
// succeeded.
func allSucceeded(t testing.TB, b *bundle, accounts []string) bool {
	for _, acc := range accounts {
		subs, err := b.svc.List(context.Background(), acc)
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		list, _, err := b.svc.Deliveries(context.Background(), acc, subs[0].ID, skygate.Page{})
		if err != nil {
			t.Fatalf("Deliveries: %v", err)
		}
		for _, d := range list {
			if d.Status != skygate.WebhookSucceeded {
				return false
			}
		}
	}
	return true
}

// waitFor polls cond until it holds or the timeout passes.
func waitFor(t testing.TB, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %v", timeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
