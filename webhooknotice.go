package skygate

import (
	"slices"
	"time"
)

// This file holds what a webhook subscription filters by and what it tells the
// account when it stops: the event types a subscription may name, and the
// webhook.subscription.disabled notice.

// EventWebhookSubscriptionDisabled is the type of the notice the store writes to the
// outbox when it turns a subscription inactive (WebhookOutcome). Its data is
// WebhookSubscriptionDisabled. It is never delivered, since its subscription is
// inactive: the account reads it in its event feed, and employees in the console.
const EventWebhookSubscriptionDisabled = "webhook.subscription.disabled"

// Reasons a subscription was turned inactive (WebhookSubscription.DisabledReason).
const (
	// WebhookDisabledFailing: its deliveries had failed for 72 hours without a success.
	WebhookDisabledFailing = "failing"
	// WebhookDisabledGone: its endpoint answered 410 Gone.
	WebhookDisabledGone = "gone"
)

// WebhookSubscriptionDisabled is the data of a webhook.subscription.disabled event.
// FailingSince is the first failure after the last success, null when unknown.
type WebhookSubscriptionDisabled struct {
	SubscriptionID string     `json:"subscription_id"`
	URL            string     `json:"url"`
	Reason         string     `json:"reason"`
	FailingSince   *time.Time `json:"failing_since"`
	DisabledAt     time.Time  `json:"disabled_at"`
}

// subscribableEventTypes are the event types a subscription's filter may name, in
// the order the contract lists them. webhook.subscription.disabled is not among them:
// it is never delivered.
var subscribableEventTypes = []string{
	EventBookingStatusChanged,
	EventPassStatusChanged,
	EventESIMOrderCompleted,
	EventESIMUsageThreshold,
	EventESIMStatusChanged,
	EventESIMProfileChanged,
	EventESIMExpiring,
	EventBillingBalanceLow,
	EventWebhookTest,
}

// SubscribableEventTypes returns the event types a subscription's filter may name.
func SubscribableEventTypes() []string { return slices.Clone(subscribableEventTypes) }

// IsSubscribableEventType reports whether a subscription's filter may name typ.
func IsSubscribableEventType(typ string) bool { return slices.Contains(subscribableEventTypes, typ) }

// Accepts reports whether the subscription receives events of type typ: an empty
// filter accepts every type that is delivered at all, and a non-empty one the types
// it names. No subscription accepts webhook.subscription.disabled.
func (w *WebhookSubscription) Accepts(typ string) bool {
	if typ == EventWebhookSubscriptionDisabled {
		return false
	}
	return len(w.EventTypes) == 0 || slices.Contains(w.EventTypes, typ)
}
