package storetest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// The subscription's filter, its re-enabling, its disabled notices and recovery.
func init() {
	webhookTests = append(webhookTests,
		test{"FilterAtFanOut", testWebhookFilterAtFanOut},
		test{"SetEventTypes", testWebhookSetEventTypes},
		test{"TestEventFilteredOut", testWebhookTestEventFilteredOut},
		test{"Enable", testWebhookEnable},
		test{"DisabledNotice", testWebhookDisabledNotice},
		test{"Recover", testWebhookRecover},
		test{"RecoverFiltered", testWebhookRecoverFiltered},
		test{"RecoverPaged", testWebhookRecoverPaged},
	)
}

// mustWriteEvents writes events of the account to the outbox with a new booking.
func mustWriteEvents(tb testing.TB, s skygate.Store, accountID string, events ...*skygate.Event) {
	tb.Helper()
	b := NewBooking(accountID, WithBookingCreated(events[0].CreatedAt))
	_, err := s.CreateBooking(tb.Context(), NewRecord(b, "key-"+NewID(), "fp"), b, events)
	MustNoError(tb, err, "CreateBooking with events")
}

// deliveriesByEvent returns the subscription's deliveries by event id.
func deliveriesByEvent(tb testing.TB, s skygate.Store, accountID, webhookID string) map[string]*skygate.WebhookDelivery {
	tb.Helper()
	list, _, err := s.ListWebhookDeliveries(tb.Context(), accountID, webhookID, skygate.Page{Limit: 500})
	MustNoError(tb, err, "ListWebhookDeliveries")
	m := make(map[string]*skygate.WebhookDelivery, len(list))
	for _, d := range list {
		m[d.EventID] = d
	}
	return m
}

func withEventTypes(types ...string) func(*skygate.WebhookSubscription) {
	return func(w *skygate.WebhookSubscription) { w.EventTypes = types }
}

// testWebhookFilterAtFanOut: an event whose type the filter leaves out gets no
// delivery; the filter is stored and read back.
func testWebhookFilterAtFanOut(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, acc.ID, withEventTypes(skygate.EventPassStatusChanged))
	wantEqual(t, "stored filter", MustWebhook(t, s, acc.ID, w.ID).EventTypes, []string{skygate.EventPassStatusChanged})
	kept := MustNewEvent(t, acc.ID, skygate.EventPassStatusChanged, At(time.Minute))
	dropped := MustNewEvent(t, acc.ID, skygate.EventBookingStatusChanged, At(time.Minute))
	mustWriteEvents(t, s, acc.ID, dropped, kept)
	got := deliveriesByEvent(t, s, acc.ID, w.ID)
	wantEqual(t, "deliveries", len(got), 1)
	if got[kept.ID] == nil {
		t.Errorf("no delivery of the accepted %s", kept.Type)
	}

	all := MustCreateAccount(t, s)
	w2 := MustCreateWebhook(t, s, all.ID)
	wantEqual(t, "no filter reads as an empty array", MustWebhook(t, s, all.ID, w2.ID).EventTypes, []string{})
	mustWriteEvents(t, s, all.ID, MustNewEvent(t, all.ID, skygate.EventBookingStatusChanged, At(time.Minute)))
	wantEqual(t, "every type without a filter", len(deliveriesByEvent(t, s, all.ID, w2.ID)), 1)
}

func testWebhookSetEventTypes(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	other := MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, acc.ID)
	now := At(time.Hour)
	types := []string{skygate.EventESIMStatusChanged, skygate.EventWebhookTest}
	got, err := s.SetWebhookEventTypes(t.Context(), acc.ID, w.ID, types, now)
	MustNoError(t, err, "SetWebhookEventTypes")
	wantEqual(t, "filter", got.EventTypes, types)
	wantEqual(t, "updated", got.UpdatedAt, Stored(now))
	wantEqual(t, "read back", MustWebhook(t, s, acc.ID, w.ID), got)

	got, err = s.SetWebhookEventTypes(t.Context(), acc.ID, w.ID, nil, now)
	MustNoError(t, err, "SetWebhookEventTypes(nil)")
	wantEqual(t, "cleared", got.EventTypes, []string{})

	_, err = s.SetWebhookEventTypes(t.Context(), other.ID, w.ID, types, now)
	WantCode(t, err, skygate.CodeNotFound)
	wantEqual(t, "another account changed nothing", MustWebhook(t, s, acc.ID, w.ID).EventTypes, []string{})
}

func testWebhookTestEventFilteredOut(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, acc.ID, withEventTypes(skygate.EventBookingStatusChanged))
	e := MustNewEvent(t, acc.ID, skygate.EventWebhookTest, At(time.Minute))
	_, err := s.CreateWebhookTestEvent(t.Context(), acc.ID, w.ID, e)
	WantCode(t, err, skygate.CodeConflict)
	_, err = s.Event(t.Context(), acc.ID, e.ID)
	WantCode(t, err, skygate.CodeNotFound) // nothing was written
	wantEqual(t, "deliveries", len(deliveriesByEvent(t, s, acc.ID, w.ID)), 0)
}

func testWebhookEnable(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, acc.ID)
	parked := MustTestDelivery(t, s, acc.ID, w.ID, At(time.Minute))
	MustDisableWebhook(t, s, acc.ID, w.ID)
	off := MustWebhook(t, s, acc.ID, w.ID)
	if off.DisabledAt == nil || off.DisabledReason == nil || *off.DisabledReason != skygate.WebhookDisabledGone {
		t.Fatalf("disabled subscription: at %v reason %v", off.DisabledAt, off.DisabledReason)
	}

	_, err := s.EnableWebhook(t.Context(), MustCreateAccount(t, s).ID, w.ID, At(time.Hour))
	WantCode(t, err, skygate.CodeNotFound)

	now := At(time.Hour)
	on, err := s.EnableWebhook(t.Context(), acc.ID, w.ID, now)
	MustNoError(t, err, "EnableWebhook")
	want := *off
	want.Active, want.FailingSince, want.DisabledAt, want.DisabledReason, want.UpdatedAt = true, nil, nil, nil, Stored(now)
	wantEqual(t, "enabled", on, &want)
	wantEqual(t, "read back", MustWebhook(t, s, acc.ID, w.ID), on)
	jobs := MustClaim(t, s, now, now.Add(lease), 10)
	wantEqual(t, "parked delivery claimed", len(jobs), 1)
	wantEqual(t, "delivery", jobs[0].Delivery.ID, parked.ID)

	// Enabling an active subscription changes nothing, its failure time included.
	MustComplete(t, s, jobs[0], skygate.WebhookPending, 500, now)
	failing := MustWebhook(t, s, acc.ID, w.ID)
	if failing.FailingSince == nil {
		t.Fatal("no failure time after a failed attempt")
	}
	again, err := s.EnableWebhook(t.Context(), acc.ID, w.ID, now.Add(time.Hour))
	MustNoError(t, err, "EnableWebhook on an active subscription")
	wantEqual(t, "unchanged", again, failing)
}

// testWebhookDisabledNotice: turning a subscription inactive writes one
// webhook.subscription.disabled event of the account, which gets no delivery.
func testWebhookDisabledNotice(t *testing.T, s skygate.Store) {
	for _, tc := range []struct {
		name   string
		reason string
	}{{"gone", skygate.WebhookDisabledGone}, {"failing", skygate.WebhookDisabledFailing}} {
		t.Run(tc.name, func(t *testing.T) {
			acc := MustCreateAccount(t, s)
			w := MustCreateWebhook(t, s, acc.ID)
			first, end := At(time.Hour), At(73*time.Hour)
			MustTestDelivery(t, s, acc.ID, w.ID, first)
			MustComplete(t, s, MustClaim(t, s, first, first.Add(lease), 10)[0], skygate.WebhookPending, 500, first)
			// Two failures at once: the first disables, the second finds it inactive.
			MustTestDelivery(t, s, acc.ID, w.ID, end)
			MustTestDelivery(t, s, acc.ID, w.ID, end)
			for _, j := range MustClaim(t, s, end, end.Add(lease), 10) {
				MustComplete(t, s, j, skygate.WebhookFailed, 410, end, func(o *skygate.WebhookOutcome) {
					o.Disable = tc.reason == skygate.WebhookDisabledGone
					o.FailingCutoff = end.Add(-72 * time.Hour)
				})
			}
			got := MustWebhook(t, s, acc.ID, w.ID)
			wantEqual(t, "active", got.Active, false)
			wantEqual(t, "disabled at", got.DisabledAt, ptr(Stored(end)))
			wantEqual(t, "reason", got.DisabledReason, ptr(tc.reason))

			events, err := s.EventsAfter(t.Context(), 0, 0)
			MustNoError(t, err, "EventsAfter")
			var notices []*skygate.Event
			for _, e := range events {
				if e.AccountID == acc.ID && e.Type == skygate.EventWebhookSubscriptionDisabled {
					notices = append(notices, e)
				}
			}
			wantEqual(t, "notices", len(notices), 1)
			var data skygate.WebhookSubscriptionDisabled
			MustNoError(t, json.Unmarshal(notices[0].Data, &data), "decode notice")
			wantEqual(t, "notice", data, skygate.WebhookSubscriptionDisabled{
				SubscriptionID: w.ID, URL: w.URL, Reason: tc.reason,
				FailingSince: ptr(Stored(first)), DisabledAt: Stored(end),
			})
			wantEqual(t, "notice time", notices[0].CreatedAt, Stored(end))
			if deliveriesByEvent(t, s, acc.ID, w.ID)[notices[0].ID] != nil {
				t.Error("the notice got a delivery")
			}

		})
	}
}
