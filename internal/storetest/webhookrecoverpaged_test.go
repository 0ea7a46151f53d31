package storetest

import (
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// testWebhookRecoverPaged: a recovery with a limit takes the oldest events first,
// redelivered and new deliveries alike, and says where to continue; continuing from
// there until it says nothing makes every event due exactly once, even when the
// limit falls among events created at one time.
func testWebhookRecoverPaged(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, acc.ID, withEventTypes(skygate.EventPassStatusChanged))
	ev := func(typ string, at time.Duration) *skygate.Event {
		return MustNewEvent(t, acc.ID, typ, At(at))
	}
	pass, booking := skygate.EventPassStatusChanged, skygate.EventBookingStatusChanged
	// In the order of the outbox; the bookings have no delivery (filtered out).
	a := ev(pass, time.Minute)
	b, c, d, e := ev(pass, 2*time.Minute), ev(booking, 2*time.Minute), ev(pass, 2*time.Minute), ev(booking, 2*time.Minute)
	f := ev(booking, 3*time.Minute)
	mustWriteEvents(t, s, acc.ID, a, b, c, d, e, f)
	at := At(10 * time.Minute)
	for _, j := range MustClaim(t, s, at, at.Add(lease), 10) {
		status := skygate.WebhookSucceeded
		if j.Delivery.EventID == d.ID {
			status = skygate.WebhookFailed
		}
		MustComplete(t, s, j, status, 204, at)
	}
	g := ev(pass, 3*time.Minute) // pending: left alone, never counted
	mustWriteEvents(t, s, acc.ID, g)
	_, err := s.SetWebhookEventTypes(t.Context(), acc.ID, w.ID, nil, at)
	MustNoError(t, err, "SetWebhookEventTypes")
	pendingBefore := deliveriesByEvent(t, s, acc.ID, w.ID)[g.ID]

	// Each call recovers at its own time, so a delivery's due time names the call
	// that made it due (and a second one would have moved it).
	type call struct {
		since time.Time
		want  skygate.WebhookRecovery
		due   []*skygate.Event
	}
	at2, at3 := Stored(At(2*time.Minute)), Stored(At(3*time.Minute))
	calls := []call{
		// a, then b at 2m: the limit falls among the 2m events, so it stops before them.
		{At(0), skygate.WebhookRecovery{Enqueued: 1, Next: &at2}, []*skygate.Event{a}},
		// b, c, d at 2m alone fill the limit: it takes two of them.
		{at2, skygate.WebhookRecovery{Enqueued: 2, Next: &at2}, []*skygate.Event{b, c}},
		// b and c are pending now and left; d and e, and f at 3m waits.
		{at2, skygate.WebhookRecovery{Enqueued: 2, Next: &at3}, []*skygate.Event{d, e}},
		// f, and g is pending: done.
		{at3, skygate.WebhookRecovery{Enqueued: 1}, []*skygate.Event{f}},
		// Everything is pending: nothing to do.
		{At(0), skygate.WebhookRecovery{}, nil},
	}
	for i, c := range calls {
		now := At(time.Hour + time.Duration(i)*time.Minute)
		r, err := s.RecoverWebhookDeliveries(t.Context(), acc.ID, w.ID, c.since, now, 2)
		MustNoError(t, err, "RecoverWebhookDeliveries")
		wantEqual(t, "recovery", r, &c.want)
		after := deliveriesByEvent(t, s, acc.ID, w.ID)
		for _, e := range c.due {
			got := after[e.ID]
			if got == nil {
				t.Fatalf("call %d: no delivery of %s", i, e.ID)
			}
			wantEqual(t, "status", got.Status, skygate.WebhookPending)
			wantEqual(t, "due at the call", got.NextAttemptAt, ptr(Stored(now)))
		}
	}
	after := deliveriesByEvent(t, s, acc.ID, w.ID)
	wantEqual(t, "deliveries", len(after), 7)
	for i, c := range calls {
		for _, e := range c.due {
			wantEqual(t, "made due once, by its call", after[e.ID].NextAttemptAt,
				ptr(Stored(At(time.Hour+time.Duration(i)*time.Minute))))
		}
	}
	wantEqual(t, "pending delivery unchanged", after[g.ID], pendingBefore)
}
