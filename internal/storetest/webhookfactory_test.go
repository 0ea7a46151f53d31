package storetest

import (
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// MustWebhook reads the account's subscription back.
func MustWebhook(tb testing.TB, s skygate.Store, accountID, webhookID string) *skygate.WebhookSubscription {
	tb.Helper()
	w, err := s.Webhook(tb.Context(), accountID, webhookID)
	MustNoError(tb, err, "Webhook")
	return w
}

// MustTestDelivery writes a webhook.test event at now and returns its delivery.
func MustTestDelivery(tb testing.TB, s skygate.Store, accountID, webhookID string, now time.Time) *skygate.WebhookDelivery {
	tb.Helper()
	e := MustNewEvent(tb, accountID, skygate.EventWebhookTest, now)
	d, err := s.CreateWebhookTestEvent(tb.Context(), accountID, webhookID, e)
	MustNoError(tb, err, "CreateWebhookTestEvent")
	return d
}

// MustDelivery reads a delivery back with its attempts.
func MustDelivery(tb testing.TB, s skygate.Store, accountID, webhookID, deliveryID string) *skygate.WebhookDelivery {
	tb.Helper()
	d, err := s.WebhookDelivery(tb.Context(), accountID, webhookID, deliveryID)
	MustNoError(tb, err, "WebhookDelivery")
	return d
}

// MustComplete records the claimed attempt of j at now with the status code and moves
// the delivery to status; a pending delivery is due again an hour later.
func MustComplete(tb testing.TB, s skygate.Store, j *skygate.WebhookJob, status skygate.WebhookDeliveryStatus, code int, now time.Time, opts ...func(*skygate.WebhookOutcome)) *skygate.WebhookOutcome {
	tb.Helper()
	o := &skygate.WebhookOutcome{
		DeliveryID:     j.Delivery.ID,
		SubscriptionID: j.Delivery.SubscriptionID,
		Attempt: skygate.WebhookAttempt{
			DeliveryID: j.Delivery.ID,
			Attempt:    j.Delivery.AttemptCount,
			At:         now,
			StatusCode: code,
			LatencyMS:  12,
		},
		Status:        status,
		NextAttemptAt: now.Add(time.Hour),
	}
	if status != skygate.WebhookSucceeded {
		o.Attempt.Error = "HTTP 500"
	}
	for _, opt := range opts {
		opt(o)
	}
	MustNoError(tb, s.CompleteWebhookDeliveries(tb.Context(), []*skygate.WebhookOutcome{o}), "CompleteWebhookDeliveries")
	return o
}

// MustDisableWebhook turns the subscription inactive the way the dispatcher does on
// 410 Gone: a webhook.test delivery a day before T0 is claimed and failed with
// Disable. Being due that early, it is the only delivery the claim takes.
func MustDisableWebhook(tb testing.TB, s skygate.Store, accountID, webhookID string) {
	tb.Helper()
	at := T0.Add(-24 * time.Hour)
	d := MustTestDelivery(tb, s, accountID, webhookID, at)
	for _, j := range MustClaim(tb, s, at, at.Add(time.Minute), 100) {
		if j.Delivery.ID != d.ID {
			tb.Fatalf("MustDisableWebhook claimed another delivery: %+v", j.Delivery)
		}
		MustComplete(tb, s, j, skygate.WebhookFailed, 410, at, func(o *skygate.WebhookOutcome) { o.Disable = true })
	}
	if MustWebhook(tb, s, accountID, webhookID).Active {
		tb.Fatal("MustDisableWebhook: the subscription is still active")
	}
}
