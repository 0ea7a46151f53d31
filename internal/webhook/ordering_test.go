package webhook_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/storetest"
	"github.com/skygate/skygate/internal/webhook"
)

// TestOrderedDeliveriesWakeRun: a booking's creation and issue write three events,
// all due at once. The store lets only the first go; each success must release the
// next, and Run must send it without a Notify and without a poll (its interval is far
// longer than the test may run), in the order the events were written. A dispatcher
// that waited for its poll would never deliver the second event; the bound below only
// keeps such a failure from hanging the test.
func TestOrderedDeliveriesWakeRun(t *testing.T) {
	t.Parallel()
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			arrived := make(chan string, 8)
			bd := setupOn(t, e, func(_ http.ResponseWriter, r *request, _ int) { arrived <- r.ID })

			bk := storetest.NewBooking(bd.account, storetest.WithBookingCreated(bd.clock.Now()))
			events, err := skygate.BookingEvents(nil, bk, bk.CreatedAt)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := bd.store.CreateBooking(t.Context(), storetest.NewRecord(bk, "k-"+bk.ID, "fp"), bk, events); err != nil {
				t.Fatal(err)
			}
			storetest.MustTransition(t, bd.store, bk, bd.clock.Now(), skygate.TriggerIssue)
			var want []string
			for _, ev := range storetest.MustEventsAfter(t, bd.store, 0) {
				want = append(want, ev.ID)
			}
			if len(want) != 3 {
				t.Fatalf("%d events written, want 3", len(want))
			}

			d := webhook.NewDispatcher(webhook.DispatcherConfig{
				Store: bd.store, Box: bd.box, AllowPrivate: true, Clock: bd.clock.Now,
				PollInterval: time.Hour,
			})
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			wg.Go(func() { _ = d.Run(ctx) })
			defer func() { cancel(); wg.Wait() }()

			var got []string
			for range want {
				select {
				case id := <-arrived:
					got = append(got, id)
				case <-time.After(time.Minute):
					t.Fatalf("received %v, then nothing: a finished delivery did not wake Run", got)
				}
			}
			if !equal(got, want) {
				t.Fatalf("received %v, want the order written %v", got, want)
			}
		})
	}
}
