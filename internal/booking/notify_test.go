package booking_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/booking"
	"github.com/skygate/skygate/internal/postgres/pgtest"
	"github.com/skygate/skygate/internal/sqlite/sqlitetest"
	"github.com/skygate/skygate/internal/storetest"
)

// TestCreateWakesWorker: with an hour between ticks, a new booking is still issued at
// once because Create wakes the worker, and the store reports the webhook deliveries
// of its events (the dispatcher's wake-up) after the issue has committed. With group
// commit the create and the issue may share one commit, and then one call reports
// both.
func TestCreateWakesWorker(t *testing.T) {
	t.Parallel()
	s := sqlitetest.MustOpen(t)
	account := storetest.MustCreateAccount(t, s).ID
	storetest.MustCreateWebhook(t, s, account)
	// The hook runs after its commit: a hook call that finds the booking Issued
	// reported the issue's deliveries.
	var reportedIssue atomic.Bool
	s.OnDeliveries(func() {
		issued, _, err := s.ListBookings(context.Background(), account, skygate.BookingIssued, skygate.Page{Limit: 1})
		if err == nil && len(issued) > 0 {
			reportedIssue.Store(true)
		}
	})
	b := startWorker(t, s, account)
	svc := b.svc

	created := b.MustCreate(t, request())
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := svc.Get(t.Context(), b.account, created.ID)
		storetest.MustNoError(t, err, "Get")
		if got.Status == skygate.BookingIssued && reportedIssue.Load() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s without a tick: status %s, issue reported to OnDeliveries: %v", got.Status, reportedIssue.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Waking never blocks, even when no worker waits.
	idle := setupStore(t, s)
	idle.MustCreate(t, request())
	idle.MustCreate(t, request())
}

// TestNotifyIssuesOnly: a run that a new booking triggers issues new bookings but leaves
// expiry to the tick, so a busy create path does not add two idle write transactions
// to every issue.
func TestNotifyIssuesOnly(t *testing.T) {
	t.Parallel()
	s := sqlitetest.MustOpen(t)
	account := storetest.MustCreateAccount(t, s).ID
	b := startWorker(t, s, account)
	svc := b.svc
	waitIssued := func(id string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			got, err := svc.Get(t.Context(), account, id)
			storetest.MustNoError(t, err, "Get")
			if got.Status == skygate.BookingIssued {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("booking %s still %s after 10 s", id, got.Status)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}

	first := b.MustCreate(t, request())
	waitIssued(first.ID)
	b.clock.Advance(48 * time.Hour) // past first's confirmation deadline
	second := b.MustCreate(t, request())
	waitIssued(second.ID)
	got, err := svc.Get(t.Context(), account, first.ID)
	storetest.MustNoError(t, err, "Get")
	if got.Status != skygate.BookingIssued {
		t.Fatalf("a Notify run moved the overdue booking to %s; expiry is the tick's", got.Status)
	}
	if st := b.MustRun(t); st.Expired != 1 {
		t.Errorf("the full run expired %d bookings, want the overdue one", st.Expired)
	}
}

// startWorker runs a worker over s, woken by every create and ticking only every
// hour, until the test ends.
func startWorker(t *testing.T, s skygate.Store, account string) *bundle {
	t.Helper()
	c := &clock{t: Start}
	svc := booking.New(booking.Config{Store: s, FastTracks: fastTracks{}, Clock: c.Now})
	worker := booking.NewWorker(svc, nil)
	worker.Interval = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- worker.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return &bundle{store: s, svc: svc, worker: worker, clock: c, account: account}
}

// TestDeliveriesWakeOnlyOnCommit: every write that commits events of an account with
// an active webhook (so deliveries) calls OnDeliveries, on both engines and whoever
// writes (a partner's confirm, an employee's complete); a write that fails does not,
// and neither do the events of an account without a subscription.
func TestDeliveriesWakeOnlyOnCommit(t *testing.T) {
	t.Parallel()
	for _, e := range []struct {
		name string
		open func(testing.TB) interface {
			skygate.Store
			OnDeliveries(func())
		}
	}{
		{"sqlite", func(tb testing.TB) interface {
			skygate.Store
			OnDeliveries(func())
		} {
			return sqlitetest.MustOpen(tb)
		}},
		{"postgres", func(tb testing.TB) interface {
			skygate.Store
			OnDeliveries(func())
		} {
			return pgtest.MustOpen(tb)
		}},
	} {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			s := e.open(t)
			var n atomic.Int32
			s.OnDeliveries(func() { n.Add(1) })
			c := &clock{t: Start}
			svc := booking.New(booking.Config{Store: s, FastTracks: fastTracks{}, Clock: c.Now})
			b := &bundle{store: s, svc: svc, worker: booking.NewWorker(svc, nil), clock: c, account: storetest.MustCreateAccount(t, s).ID}
			step := func(what string, want int32, err error) {
				t.Helper()
				if got := n.Swap(0); got != want {
					t.Errorf("%s: OnDeliveries called %d times, want %d (err %v)", what, got, want, err)
				}
			}
			quiet := &bundle{store: s, svc: svc, worker: b.worker, clock: c, account: storetest.MustCreateAccount(t, s).ID}
			unsubscribed := quiet.MustCreate(t, request())
			step("create without a webhook", 0, nil)
			_, err := b.worker.RunOnce(t.Context())
			step("issue without a webhook", 0, err)
			if got := storetest.MustBooking(t, s, quiet.account, unsubscribed.ID); got.Status != skygate.BookingIssued {
				t.Fatalf("the booking without a webhook is %s, want Issued", got.Status)
			}

			storetest.MustCreateWebhook(t, s, b.account)
			created := b.MustCreate(t, request())
			step("create", 1, nil)
			_, err = svc.Confirm(t.Context(), b.account, created.ID)
			step("confirm of a Pending booking (refused)", 0, err)
			_, err = b.worker.RunOnce(t.Context())
			step("issue", 1, err)
			_, err = svc.Confirm(t.Context(), b.account, created.ID)
			step("confirm", 1, err)
			_, err = svc.Complete(t.Context(), created.ID, storetest.Audit("booking.complete"))
			step("complete", 1, err)
			_, err = svc.Cancel(t.Context(), "other-account", created.ID)
			step("cancel by another account (not found)", 0, err)
		})
	}
}
