package storetest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// envelopeTests prove that an event's envelope (api_version, livemode) is stored with
// it, and that the livemode of the objects events are about is kept for the events
// that background work writes later.
var envelopeTests = []test{
	{"StoredEnvelopeIsDeliveredBody", testStoredEnvelopeIsDeliveredBody},
	{"ObjectsKeepLivemode", testObjectsKeepLivemode},
}

// testStoredEnvelopeIsDeliveredBody writes events of both modes by every path that
// writes events (a booking's creation and transition, an eSIM order and an eSIM
// change, a webhook test) and checks that each event read back from the store
// encodes to its delivery's body byte for byte: the events API and the webhook give
// one envelope.
func testStoredEnvelopeIsDeliveredBody(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, acc.ID)
	pkg := MustESIMPackage(t, s, acc.ID)
	MustImportPool(t, s, acc.ID, 2)
	MustCredit(t, s, acc.ID, 10_000, "USD")
	for _, live := range []bool{true, false} {
		b := NewBooking(acc.ID, func(b *skygate.Booking) { b.Livemode = live })
		events, err := skygate.BookingEvents(nil, b, b.CreatedAt)
		MustNoError(t, err, "BookingEvents")
		_, err = s.CreateBooking(t.Context(), NewRecord(b, "key-"+NewID(), "fp"), b, events)
		MustNoError(t, err, "CreateBooking")
		MustTransition(t, s, b, At(time.Minute), skygate.TriggerIssue)

		o := NewESIMOrder(pkg, 1)
		o.Livemode = live
		_, err = CreateESIMOrder(t, s, o, "key-"+NewID())
		MustNoError(t, err, "CreateESIMOrder")
		_, err = s.UpdateESIM(t.Context(), acc.ID, o.ESIMs[0].ICCID, At(2*time.Hour), installApply(At(2*time.Hour)))
		MustNoError(t, err, "UpdateESIM")

		e, err := skygate.NewEvent(acc.ID, skygate.EventWebhookTest, live,
			skygate.WebhookTestData{SubscriptionID: w.ID, Message: "<&> \u2028"}, At(3*time.Hour))
		MustNoError(t, err, "NewEvent")
		_, err = s.CreateWebhookTestEvent(t.Context(), acc.ID, w.ID, e)
		MustNoError(t, err, "CreateWebhookTestEvent")
	}

	// An object's deliveries are claimed one at a time (ClaimWebhookDeliveries), so
	// drain them, completing each round.
	var jobs []*skygate.WebhookJob
	for now := At(24 * time.Hour); ; now = now.Add(time.Second) {
		round := MustClaim(t, s, now, now.Add(time.Hour), 100)
		if len(round) == 0 {
			break
		}
		for _, j := range round {
			MustComplete(t, s, j, skygate.WebhookSucceeded, 200, now)
		}
		jobs = append(jobs, round...)
	}
	// Per mode: created, issued, pass issued, order completed, profile installed, eSIM
	// installed, test.
	wantEqual(t, "deliveries", len(jobs), 14)
	modes := map[bool]int{}
	for _, j := range jobs {
		stored, err := s.Event(t.Context(), acc.ID, j.Delivery.EventID)
		MustNoError(t, err, "Event")
		body, err := json.Marshal(stored)
		MustNoError(t, err, "encode the stored event")
		if string(body) != string(j.Body) {
			t.Errorf("%s: stored envelope differs from the delivered body:\n stored    %s\n delivered %s", stored.Type, body, j.Body)
		}
		wantEqual(t, "api_version", stored.APIVersion, skygate.APIVersion)
		modes[stored.Livemode]++
	}
	wantEqual(t, "events by livemode", modes, map[bool]int{true: 7, false: 7})
}

// testObjectsKeepLivemode checks that bookings, eSIM orders and their eSIMs read back
// with the livemode they were created with, also after a change.
func testObjectsKeepLivemode(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	pkg := MustESIMPackage(t, s, acc.ID)
	MustImportPool(t, s, acc.ID, 4)
	MustCredit(t, s, acc.ID, 10_000, "USD")
	for _, live := range []bool{true, false} {
		b := MustCreateBooking(t, s, acc.ID, func(b *skygate.Booking) { b.Livemode = live })
		wantEqual(t, "booking livemode", MustBooking(t, s, acc.ID, b.ID).Livemode, live)
		issued := MustTransition(t, s, b, At(time.Minute), skygate.TriggerIssue)
		wantEqual(t, "issued booking livemode", issued.Livemode, live)

		o := NewESIMOrder(pkg, 2)
		o.Livemode = live
		_, err := CreateESIMOrder(t, s, o, "key-"+NewID())
		MustNoError(t, err, "CreateESIMOrder")
		got, err := s.ESIMOrder(t.Context(), acc.ID, o.ID)
		MustNoError(t, err, "ESIMOrder")
		wantEqual(t, "order livemode", got.Livemode, live)
		for _, e := range append(got.ESIMs, o.ESIMs...) {
			wantEqual(t, "order's eSIM livemode", e.Livemode, live)
		}
		after, err := s.UpdateESIM(t.Context(), acc.ID, o.ESIMs[0].ICCID, At(2*time.Hour), installApply(At(2*time.Hour)))
		MustNoError(t, err, "UpdateESIM")
		wantEqual(t, "changed eSIM livemode", after.Livemode, live)
		wantEqual(t, "read eSIM livemode", MustESIM(t, s, acc.ID, o.ESIMs[0].ICCID).Livemode, live)
	}
}
