package storetest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// testWebhookRecover: recovery makes succeeded and failed deliveries of the events
// since the time asked pending again, leaves pending ones, creates the deliveries of
// events that had none, and touches nothing older or of another account.
func testWebhookRecover(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	other := MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, acc.ID, withEventTypes(skygate.EventPassStatusChanged))
	MustCreateWebhook(t, s, other.ID)
	ev := func(typ string, at time.Duration) *skygate.Event {
		e := MustNewEvent(t, acc.ID, typ, At(at))
		mustWriteEvents(t, s, acc.ID, e)
		return e
	}
	old := ev(skygate.EventPassStatusChanged, time.Minute)
	succeeded := ev(skygate.EventPassStatusChanged, 2*time.Minute)
	failed := ev(skygate.EventPassStatusChanged, 3*time.Minute)
	filtered := ev(skygate.EventBookingStatusChanged, 4*time.Minute) // no delivery: filtered out
	mustWriteEvents(t, s, other.ID, MustNewEvent(t, other.ID, skygate.EventPassStatusChanged, At(5*time.Minute)))

	at := At(10 * time.Minute)
	for _, j := range MustClaim(t, s, at, at.Add(lease), 10) {
		status := skygate.WebhookSucceeded
		if j.Delivery.EventID == failed.ID {
			status = skygate.WebhookFailed
		}
		MustComplete(t, s, j, status, 204, at)
	}
	pending := ev(skygate.EventPassStatusChanged, 20*time.Minute) // still pending, not yet due
	_, err := s.SetWebhookEventTypes(t.Context(), acc.ID, w.ID, nil, at)
	MustNoError(t, err, "SetWebhookEventTypes")
	before := deliveriesByEvent(t, s, acc.ID, w.ID)
	if before[filtered.ID] != nil {
		t.Fatal("the filtered-out event has a delivery")
	}

	now := At(time.Hour)
	r, err := s.RecoverWebhookDeliveries(t.Context(), acc.ID, w.ID, At(2*time.Minute), now, 10)
	MustNoError(t, err, "RecoverWebhookDeliveries")
	wantEqual(t, "recovery", r, &skygate.WebhookRecovery{Enqueued: 3})
	after := deliveriesByEvent(t, s, acc.ID, w.ID)
	wantEqual(t, "older delivery unchanged", after[old.ID], before[old.ID])
	wantEqual(t, "pending delivery unchanged", after[pending.ID], before[pending.ID])
	for _, e := range []*skygate.Event{succeeded, failed} {
		got, was := after[e.ID], before[e.ID]
		wantEqual(t, e.ID+" status", got.Status, skygate.WebhookPending)
		wantEqual(t, e.ID+" due", got.NextAttemptAt, ptr(Stored(now)))
		wantEqual(t, e.ID+" same delivery", got.ID, was.ID)
		wantEqual(t, e.ID+" attempt count continues", got.AttemptCount, was.AttemptCount)
		wantEqual(t, e.ID+" attempt log kept", got.Attempts, was.Attempts)
	}
	created := after[filtered.ID]
	if created == nil {
		t.Fatal("no delivery of the event that had none")
	}
	wantEqual(t, "new delivery", created, &skygate.WebhookDelivery{
		ID: created.ID, SubscriptionID: w.ID, AccountID: acc.ID, EventID: filtered.ID,
		EventType: filtered.Type, MessageID: filtered.ID, Status: skygate.WebhookPending,
		NextAttemptAt: ptr(Stored(now)), CreatedAt: Stored(now), UpdatedAt: Stored(now),
		Attempts: []*skygate.WebhookAttempt{},
	})

	// The recovered deliveries are due now, with the envelope of their event.
	// The recovered deliveries are due now (with the pending one, due since), each
	// with the envelope of its event.
	jobs := MustClaim(t, s, now, now.Add(lease), 10)
	wantEqual(t, "claimed", len(jobs), 4)
	for _, j := range jobs {
		wantEqual(t, "claimed account", j.Delivery.AccountID, acc.ID)
		if j.Delivery.EventID == filtered.ID {
			want, err := json.Marshal(filtered)
			MustNoError(t, err, "encode event")
			wantEqual(t, "body", string(j.Body), string(want))
		}
	}
	for _, d := range deliveriesByEvent(t, s, other.ID, MustListOneWebhook(t, s, other.ID).ID) {
		wantEqual(t, "other account's delivery", d.Status, skygate.WebhookSucceeded)
	}

	// A second recovery finds the deliveries pending.
	r, err = s.RecoverWebhookDeliveries(t.Context(), acc.ID, w.ID, At(0), now, 10)
	MustNoError(t, err, "RecoverWebhookDeliveries again")
	wantEqual(t, "enqueued again (only the older succeeded one)", r, &skygate.WebhookRecovery{Enqueued: 1})

	_, err = s.RecoverWebhookDeliveries(t.Context(), other.ID, w.ID, At(0), now, 10)
	WantCode(t, err, skygate.CodeNotFound)
	MustDisableWebhook(t, s, acc.ID, w.ID)
	_, err = s.RecoverWebhookDeliveries(t.Context(), acc.ID, w.ID, At(0), now, 10)
	WantCode(t, err, skygate.CodeConflict)
}

// testWebhookRecoverFiltered: recovery follows the filter, and never delivers the
// disabled notice.
func testWebhookRecoverFiltered(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, acc.ID)
	MustDisableWebhook(t, s, acc.ID, w.ID) // writes the notice, at T0-24h
	written := []*skygate.Event{
		MustNewEvent(t, acc.ID, skygate.EventBookingStatusChanged, At(time.Minute)),
		MustNewEvent(t, acc.ID, skygate.EventESIMStatusChanged, At(time.Minute)),
	}
	mustWriteEvents(t, s, acc.ID, written...) // parked: no deliveries while inactive
	_, err := s.EnableWebhook(t.Context(), acc.ID, w.ID, At(time.Hour))
	MustNoError(t, err, "EnableWebhook")
	_, err = s.SetWebhookEventTypes(t.Context(), acc.ID, w.ID, []string{skygate.EventESIMStatusChanged}, At(time.Hour))
	MustNoError(t, err, "SetWebhookEventTypes")
	before := len(deliveriesByEvent(t, s, acc.ID, w.ID))

	r, err := s.RecoverWebhookDeliveries(t.Context(), acc.ID, w.ID, At(-48*time.Hour), At(time.Hour), 10)
	MustNoError(t, err, "RecoverWebhookDeliveries")
	wantEqual(t, "recovery", r, &skygate.WebhookRecovery{Enqueued: 1})
	after := deliveriesByEvent(t, s, acc.ID, w.ID)
	wantEqual(t, "deliveries", len(after), before+1)
	if after[written[1].ID] == nil {
		t.Error("the accepted event was not recovered")
	}
	for _, d := range after {
		if d.EventType == skygate.EventWebhookSubscriptionDisabled {
			t.Error("the disabled notice got a delivery")
		}
	}
}

// MustListOneWebhook returns the account's one subscription.
func MustListOneWebhook(tb testing.TB, s skygate.Store, accountID string) *skygate.WebhookSubscription {
	tb.Helper()
	list, err := s.ListWebhooks(tb.Context(), accountID)
	MustNoError(tb, err, "ListWebhooks")
	if len(list) != 1 {
		tb.Fatalf("the account has %d subscriptions", len(list))
	}
	return list[0]
}
