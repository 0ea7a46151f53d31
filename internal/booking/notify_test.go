package booking_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/booking"
	"github.com/skygate/skygate/internal/storetest"
)

// TestCreateWakesWorker: with an hour between ticks, a new booking is still issued at
// once because Create wakes the worker, and the worker reports the change.
func TestCreateWakesWorker(t *testing.T) {
	t.Parallel()
	s := storetest.MustSQLite(t)
	c := &clock{t: Start}
	var worker *booking.Worker
	svc := booking.New(booking.Config{Store: s, FastTracks: fastTracks{}, Clock: c.Now, Created: func() { worker.Notify() }})
	worker = booking.NewWorker(svc, nil)
	var changes atomic.Int32
	worker.OnChange = func() { changes.Add(1) }
	b := &bundle{store: s, svc: svc, worker: worker, clock: c, account: storetest.MustCreateAccount(t, s).ID}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- worker.Run(ctx, time.Hour) }()
	defer func() { cancel(); <-done }()

	created := b.MustCreate(t, request())
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := svc.Get(t.Context(), b.account, created.ID)
		storetest.MustNoError(t, err, "Get")
		if got.Status == skygate.BookingIssued {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not issued without a tick: %s", got.Status)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for changes.Load() == 0 { // called once the run that issued it returns
		if time.Now().After(deadline) {
			t.Fatal("OnChange was not called")
		}
		time.Sleep(10 * time.Millisecond)
	}
	worker.Notify() // never blocks, even when nobody waits
	worker.Notify()
}
