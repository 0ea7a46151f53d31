package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// testBookingCreateEvents creates bookings of a subscribed account with 0 to 33
// events: every event is stored, in order, with one delivery each. The counts span an
// engine's one-statement creation (PostgreSQL's, at most one event) and its
// transaction, and the outbox's rows per INSERT.
func testBookingCreateEvents(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, acc.ID)
	var want []string
	for i, n := range []int{0, 1, 2, 4, 5, 33} {
		b := NewBooking(acc.ID, WithBookingCreated(At(time.Duration(i)*time.Minute)))
		events := make([]*skygate.Event, n)
		for j := range events {
			events[j] = MustNewEvent(t, acc.ID, skygate.EventBookingStatusChanged, b.CreatedAt)
			want = append(want, events[j].ID)
		}
		replay, err := s.CreateBooking(t.Context(), NewRecord(b, fmt.Sprintf("key-%d", n), "fp"), b, events)
		MustNoError(t, err, fmt.Sprintf("CreateBooking with %d events", n))
		if replay != nil {
			t.Fatalf("CreateBooking with %d events replayed %+v", n, replay)
		}
		wantEqual(t, "stored booking", MustBooking(t, s, acc.ID, b.ID).ID, b.ID)
	}
	var got []string
	for _, e := range MustEventsAfter(t, s, 0) {
		got = append(got, e.ID)
	}
	wantEqual(t, "events in order", got, want)
	jobs := MustClaim(t, s, At(time.Hour), At(2*time.Hour), 100)
	delivered := map[string]bool{}
	for _, j := range jobs {
		wantEqual(t, "subscription", j.Delivery.SubscriptionID, w.ID)
		delivered[j.Delivery.EventID] = true
	}
	wantEqual(t, "deliveries", len(delivered), len(want))
	for _, id := range want {
		if !delivered[id] {
			t.Errorf("event %s has no delivery", id)
		}
	}
}

// testBookingCreateAtomic makes a creation fail on its last write, an event whose id
// is taken, with one event and with more than one statement's worth: nothing of it
// stays, not the key, the booking, its other events nor their deliveries.
func testBookingCreateAtomic(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	MustCreateWebhook(t, s, acc.ID)
	first := NewBooking(acc.ID)
	taken := MustNewEvent(t, acc.ID, skygate.EventBookingStatusChanged, first.CreatedAt)
	_, err := s.CreateBooking(t.Context(), NewRecord(first, "first", "fp"), first, []*skygate.Event{taken})
	MustNoError(t, err, "CreateBooking")
	for _, n := range []int{1, 2, 40} {
		b := NewBooking(acc.ID, WithBookingCreated(At(time.Minute)))
		var events []*skygate.Event
		for range n - 1 {
			events = append(events, MustNewEvent(t, acc.ID, skygate.EventBookingStatusChanged, b.CreatedAt))
		}
		events = append(events, &skygate.Event{ID: taken.ID, AccountID: acc.ID, Type: taken.Type, Data: taken.Data, CreatedAt: b.CreatedAt})
		key := fmt.Sprintf("fails-%d", n)
		_, err := s.CreateBooking(t.Context(), NewRecord(b, key, "fp"), b, events)
		WantCode(t, err, skygate.CodeConflict)
		_, err = s.IdempotencyRecord(t.Context(), acc.ID, skygate.OperationCreateBooking, key, T0)
		WantCode(t, err, skygate.CodeNotFound)
		_, err = s.Booking(t.Context(), acc.ID, b.ID)
		WantCode(t, err, skygate.CodeNotFound)
	}
	wantEqual(t, "events", len(MustEventsAfter(t, s, 0)), 1)
	wantEqual(t, "deliveries", len(MustClaim(t, s, At(time.Hour), At(2*time.Hour), 100)), 1)
}
