package storetest

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

var webhookTests = []test{
	{"CreateAndGet", testWebhookCreateAndGet},
	{"OnePerAccount", testWebhookOnePerAccount},
	{"ConcurrentCreate", testWebhookConcurrentCreate},
	{"UnknownAccount", testWebhookUnknownAccount},
	{"OtherAccountNotFound", testWebhookOtherAccount},
	{"RotateSecret", testWebhookRotate},
	{"ChangeURL", testWebhookChangeURL},
	{"DeleteCascades", testWebhookDelete},
	{"FanOut", testWebhookFanOut},
	{"TestEvent", testWebhookTestEvent},
	{"ClaimAndComplete", testDeliveryClaimAndComplete},
	{"LeaseExpiry", testDeliveryLeaseExpiry},
	{"FailureRules", testDeliveryFailureRules},
	{"ParkedWhileInactive", testDeliveryParked},
	{"Retry", testDeliveryRetry},
	{"ListDeliveries", testDeliveryList},
	{"CompleteAfterDelete", testDeliveryCompleteAfterDelete},
	{"CompleteBatch", testDeliveryCompleteBatch},
	{"ConcurrentClaims", testDeliveryConcurrentClaims},
	{"Backlog", testWebhookBacklog},
}

func testWebhookCreateAndGet(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, acc.ID)
	wantUTC(t, "created", w.CreatedAt, w.UpdatedAt)
	got := MustWebhook(t, s, acc.ID, w.ID)
	wantEqual(t, "Webhook", got, w)
	if got.PreviousSecret != nil || got.PreviousValidUntil != nil || got.FailingSince != nil {
		t.Fatalf("a new subscription has rotation or failure state: %+v", got)
	}
	list, err := s.ListWebhooks(t.Context(), acc.ID)
	MustNoError(t, err, "ListWebhooks")
	wantEqual(t, "ListWebhooks", list, []*skygate.WebhookSubscription{w})

	empty, err := s.ListWebhooks(t.Context(), MustCreateAccount(t, s).ID)
	MustNoError(t, err, "ListWebhooks of an account without one")
	if empty == nil || len(empty) != 0 {
		t.Fatalf("ListWebhooks = %v, want an empty non-nil slice", empty)
	}
}

func testWebhookOnePerAccount(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	first := MustCreateWebhook(t, s, acc.ID)
	second := NewWebhook(acc.ID)
	WantCode(t, s.CreateWebhook(t.Context(), second), skygate.CodeWebhookExists)
	list, err := s.ListWebhooks(t.Context(), acc.ID)
	MustNoError(t, err, "ListWebhooks")
	wantEqual(t, "the first remains", list, []*skygate.WebhookSubscription{first})
	MustCreateWebhook(t, s, MustCreateAccount(t, s).ID) // other accounts are unaffected
}

func testWebhookConcurrentCreate(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = s.CreateWebhook(t.Context(), NewWebhook(acc.ID)) })
	}
	wg.Wait()
	created := 0
	for _, err := range errs {
		if err == nil {
			created++
			continue
		}
		WantCode(t, err, skygate.CodeWebhookExists)
	}
	wantEqual(t, "subscriptions created", created, 1)
}

func testWebhookUnknownAccount(t *testing.T, s skygate.Store) {
	WantCode(t, s.CreateWebhook(t.Context(), NewWebhook(NewID())), skygate.CodeNotFound)
}

func testWebhookOtherAccount(t *testing.T, s skygate.Store) {
	owner := MustCreateAccount(t, s)
	other := MustCreateAccount(t, s)
	MustCreateWebhook(t, s, other.ID) // the other account's own subscription must not help
	w := MustCreateWebhook(t, s, owner.ID)
	d := MustTestDelivery(t, s, owner.ID, w.ID, At(time.Minute))
	ctx, now := t.Context(), At(time.Hour)
	tests := []struct {
		name string
		call func() error
	}{
		{"Webhook", func() error { _, err := s.Webhook(ctx, other.ID, w.ID); return err }},
		{"DeleteWebhook", func() error { return s.DeleteWebhook(ctx, other.ID, w.ID) }},
		{"RotateWebhookSecret", func() error {
			_, err := s.RotateWebhookSecret(ctx, other.ID, w.ID, []byte("x"), now, now)
			return err
		}},
		{"ChangeWebhookURL", func() error {
			_, err := s.ChangeWebhookURL(ctx, other.ID, w.ID, "https://evil.example/", now)
			return err
		}},
		{"CreateWebhookTestEvent", func() error {
			e := MustNewEvent(t, other.ID, skygate.EventWebhookTest, now)
			_, err := s.CreateWebhookTestEvent(ctx, other.ID, w.ID, e)
			return err
		}},
		{"ListWebhookDeliveries", func() error {
			_, _, err := s.ListWebhookDeliveries(ctx, other.ID, w.ID, skygate.Page{})
			return err
		}},
		{"WebhookDelivery", func() error { _, err := s.WebhookDelivery(ctx, other.ID, w.ID, d.ID); return err }},
		{"RetryWebhookDelivery", func() error {
			_, err := s.RetryWebhookDelivery(ctx, other.ID, w.ID, d.ID, now)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { WantCode(t, tt.call(), skygate.CodeNotFound) })
	}
	wantEqual(t, "untouched", MustWebhook(t, s, owner.ID, w.ID), w)
	wantEqual(t, "delivery untouched", MustDelivery(t, s, owner.ID, w.ID, d.ID), d)
}

func testWebhookRotate(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, acc.ID)
	MustDisableWebhook(t, s, acc.ID, w.ID)

	now, until := At(time.Hour), At(25*time.Hour)
	got, err := s.RotateWebhookSecret(t.Context(), acc.ID, w.ID, []byte("sealed-2"), until, now)
	MustNoError(t, err, "RotateWebhookSecret")
	want := *w
	want.Secret, want.PreviousSecret = []byte("sealed-2"), w.Secret
	want.PreviousValidUntil, want.UpdatedAt = ptr(Stored(until)), Stored(now)
	wantEqual(t, "rotated (and reactivated)", got, &want)
	wantEqual(t, "stored", MustWebhook(t, s, acc.ID, w.ID), got)

	again, err := s.RotateWebhookSecret(t.Context(), acc.ID, w.ID, []byte("sealed-3"), At(26*time.Hour), At(2*time.Hour))
	MustNoError(t, err, "RotateWebhookSecret again")
	wantEqual(t, "secret", again.Secret, []byte("sealed-3"))
	wantEqual(t, "previous is the last secret, the oldest is dropped", again.PreviousSecret, []byte("sealed-2"))
}

func testWebhookChangeURL(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, acc.ID)
	MustDisableWebhook(t, s, acc.ID, w.ID)
	now := At(time.Hour)
	got, err := s.ChangeWebhookURL(t.Context(), acc.ID, w.ID, "https://new.example/hook", now)
	MustNoError(t, err, "ChangeWebhookURL")
	want := *w
	want.URL, want.UpdatedAt = "https://new.example/hook", Stored(now)
	wantEqual(t, "changed (and reactivated)", got, &want)
	wantEqual(t, "stored", MustWebhook(t, s, acc.ID, w.ID), got)
}

func testWebhookDelete(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, acc.ID)
	d := MustTestDelivery(t, s, acc.ID, w.ID, At(time.Minute))
	jobs := MustClaim(t, s, At(time.Minute), At(2*time.Minute), 10)
	MustComplete(t, s, jobs[0], skygate.WebhookPending, 500, At(time.Minute))

	MustNoError(t, s.DeleteWebhook(t.Context(), acc.ID, w.ID), "DeleteWebhook")
	_, err := s.Webhook(t.Context(), acc.ID, w.ID)
	WantCode(t, err, skygate.CodeNotFound)
	_, err = s.WebhookDelivery(t.Context(), acc.ID, w.ID, d.ID)
	WantCode(t, err, skygate.CodeNotFound)
	WantCode(t, s.DeleteWebhook(t.Context(), acc.ID, w.ID), skygate.CodeNotFound)
	wantEqual(t, "claims after delete", len(MustClaim(t, s, At(time.Hour), At(2*time.Hour), 10)), 0)
	MustCreateWebhook(t, s, acc.ID) // the account may subscribe again
}

// testWebhookFanOut writes events through the booking store: each event of an account
// with an active subscription gets one pending delivery, due at the event time, whose
// body is the event envelope.
func testWebhookFanOut(t *testing.T, s skygate.Store) {
	subscribed := MustCreateAccount(t, s)
	unsubscribed := MustCreateAccount(t, s)
	inactive := MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, subscribed.ID)
	off := MustCreateWebhook(t, s, inactive.ID)
	MustDisableWebhook(t, s, inactive.ID, off.ID)

	var events []*skygate.Event
	for i, acc := range []*skygate.Account{subscribed, unsubscribed, inactive, subscribed} {
		b := NewBooking(acc.ID, WithBookingCreated(At(time.Duration(i)*time.Minute)))
		e := MustNewEvent(t, acc.ID, skygate.EventBookingStatusChanged, b.CreatedAt)
		_, err := s.CreateBooking(t.Context(), NewRecord(b, "key-"+NewID(), "fp"), b, []*skygate.Event{e})
		MustNoError(t, err, "CreateBooking with an event")
		events = append(events, e)
	}

	jobs := MustClaim(t, s, At(time.Hour), At(2*time.Hour), 10)
	wantEqual(t, "deliveries", len(jobs), 2)
	for i, j := range jobs {
		e := events[[]int{0, 3}[i]]
		d := j.Delivery
		wantEqual(t, "subscription", d.SubscriptionID, w.ID)
		wantEqual(t, "account", d.AccountID, subscribed.ID)
		wantEqual(t, "event", [3]string{d.EventID, d.MessageID, d.EventType}, [3]string{e.ID, e.ID, e.Type})
		wantEqual(t, "created at the event time", d.CreatedAt, Stored(e.CreatedAt))
		want, err := json.Marshal(e)
		MustNoError(t, err, "encode event")
		wantEqual(t, "body", string(j.Body), string(want))
		var envelope map[string]any
		MustNoError(t, json.Unmarshal(j.Body, &envelope), "decode body")
		for _, k := range []string{"id", "type", "api_version", "created_at", "account_id", "livemode", "data"} {
			if _, ok := envelope[k]; !ok {
				t.Errorf("envelope has no %q: %s", k, j.Body)
			}
		}
		wantEqual(t, "envelope fields", len(envelope), 7)
	}
}

func testWebhookTestEvent(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, acc.ID)
	now := At(time.Minute)
	e := MustNewEvent(t, acc.ID, skygate.EventWebhookTest, now)
	d, err := s.CreateWebhookTestEvent(t.Context(), acc.ID, w.ID, e)
	MustNoError(t, err, "CreateWebhookTestEvent")
	want := &skygate.WebhookDelivery{
		ID: d.ID, SubscriptionID: w.ID, AccountID: acc.ID, EventID: e.ID, EventType: skygate.EventWebhookTest,
		MessageID: e.ID, Status: skygate.WebhookPending, NextAttemptAt: ptr(Stored(now)),
		CreatedAt: Stored(now), UpdatedAt: Stored(now), Attempts: []*skygate.WebhookAttempt{},
	}
	wantEqual(t, "delivery", d, want)
	wantEqual(t, "stored", MustDelivery(t, s, acc.ID, w.ID, d.ID), want)
	stored, err := s.Event(t.Context(), acc.ID, e.ID)
	MustNoError(t, err, "Event")
	wantEqual(t, "event type", stored.Type, skygate.EventWebhookTest)

	MustDisableWebhook(t, s, acc.ID, w.ID)
	e2 := MustNewEvent(t, acc.ID, skygate.EventWebhookTest, now)
	_, err = s.CreateWebhookTestEvent(t.Context(), acc.ID, w.ID, e2)
	WantCode(t, err, skygate.CodeConflict)
	_, err = s.Event(t.Context(), acc.ID, e2.ID)
	WantCode(t, err, skygate.CodeNotFound) // nothing was written
}

func ptr[T any](v T) *T { return &v }
