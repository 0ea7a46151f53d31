package skygate

// This file holds outgoing webhooks (SPEC §2.1, §4.4, §6; CONTRACT §5): the one
// subscription an account may have, the delivery of every outbox event to it, the log
// of delivery attempts, and the WebhookStore contract.

import (
	"context"
	"time"
)

// EventWebhookTest is the type of the event that the test operation writes to the
// outbox; it is delivered like any other event. Its data is WebhookTestData.
const EventWebhookTest = "webhook.test"

// WebhookTestData is the data of a webhook.test event.
type WebhookTestData struct {
	SubscriptionID string `json:"subscription_id"`
	Message        string `json:"message"`
}

// WebhookSubscription is an account's endpoint for events. An account has at most one.
// Its JSON form is the partner-facing resource (SPEC §2.1); the secrets, the account
// and the failure bookkeeping are internal and never serialised.
//
// EventTypes is the subscription's filter: the event types it receives, none meaning
// every type (see Accepts); stores return it non-nil, so its JSON form is always an
// array. DisabledAt and DisabledReason say when and why the store last turned the
// subscription inactive (a WebhookDisabled… reason); both are nil while it is active.
//
// Secret and PreviousSecret are sealed (encrypted) signing secrets; the store keeps
// the bytes it is given and never sees a plaintext secret. PreviousSecret still signs
// until PreviousValidUntil (the grace period after a rotation). FailingSince is the
// time of the first failed attempt after the last successful one; nil while the
// endpoint is healthy.
type WebhookSubscription struct {
	ID             string     `json:"id"`
	AccountID      string     `json:"-"`
	URL            string     `json:"url"`
	Active         bool       `json:"active"`
	EventTypes     []string   `json:"event_types"`
	DisabledAt     *time.Time `json:"disabled_at"`
	DisabledReason *string    `json:"disabled_reason"`
	CreatedAt      time.Time  `json:"created_at"`
	UpdatedAt      time.Time  `json:"updated_at"`

	Secret             []byte     `json:"-"`
	PreviousSecret     []byte     `json:"-"`
	PreviousValidUntil *time.Time `json:"-"`
	FailingSince       *time.Time `json:"-"`
}

// WebhookDeliveryStatus is where a delivery is: pending (waiting for its next attempt,
// or in flight), succeeded (a 2xx answer) or failed (retries exhausted, 410 Gone).
type WebhookDeliveryStatus string

const (
	WebhookPending   WebhookDeliveryStatus = "pending"
	WebhookSucceeded WebhookDeliveryStatus = "succeeded"
	WebhookFailed    WebhookDeliveryStatus = "failed"
)

// WebhookDelivery is the delivery of one event to one subscription. It is created in
// the transaction that writes the event, so an event is never lost between the two.
//
// MessageID is the Standard Webhooks webhook-id header: the event id, the same on
// every attempt, so receivers dedupe by it. AttemptCount counts attempts started,
// including one whose outcome a crashed dispatcher never recorded. NextAttemptAt is
// set only while the delivery is pending; while an attempt is in flight it is the end
// of the attempt's lease, when another dispatcher may take the delivery over. A
// delivery never attempted that waits for an earlier one of its object to be retried
// is due no earlier than that retry (ClaimWebhookDeliveries).
// LastStatusCode is 0 when the last attempt got no HTTP answer. Attempts is the log,
// oldest first, filled by the methods that document it.
type WebhookDelivery struct {
	ID             string                `json:"id"`
	SubscriptionID string                `json:"subscription_id"`
	AccountID      string                `json:"-"`
	EventID        string                `json:"event_id"`
	EventType      string                `json:"event_type"`
	MessageID      string                `json:"message_id"`
	Status         WebhookDeliveryStatus `json:"status"`
	AttemptCount   int                   `json:"attempt_count"`
	NextAttemptAt  *time.Time            `json:"next_attempt_at"`
	LastStatusCode int                   `json:"last_status_code"`
	LastError      string                `json:"last_error"`
	CreatedAt      time.Time             `json:"created_at"`
	UpdatedAt      time.Time             `json:"updated_at"`
	Attempts       []*WebhookAttempt     `json:"attempts"`
}

// WebhookAttempt is one HTTP request of a delivery. StatusCode is 0 when no answer
// arrived; Error is empty on success and otherwise a short, partner-safe description
// (an HTTP status, a timeout, a refused connection or address, a redirect).
type WebhookAttempt struct {
	DeliveryID string    `json:"-"`
	Attempt    int       `json:"attempt"`
	At         time.Time `json:"at"`
	StatusCode int       `json:"status_code"`
	LatencyMS  int64     `json:"latency_ms"`
	Error      string    `json:"error"`
}

// WebhookJob is a claimed delivery with what sending it needs: the subscription (URL
// and sealed secrets) and the request body, which is the event envelope (see Event)
// encoded once when the delivery was created, so every attempt sends the same bytes. Delivery.AttemptCount already
// counts this attempt and is its number.
type WebhookJob struct {
	Delivery     *WebhookDelivery
	Subscription *WebhookSubscription
	Body         []byte
}

// WebhookOutcome is the result of one attempt, written by CompleteWebhookDeliveries.
// Status is the delivery's new status: succeeded, pending (retry at NextAttemptAt) or
// failed. Disable turns the subscription inactive (410 Gone). On a failure the store
// records the first failure time and turns the subscription inactive when it has
// been failing since FailingCutoff or earlier (the 72-hour rule). Whenever an outcome
// turns a subscription inactive, the store writes a webhook.subscription.disabled
// event (WebhookSubscriptionDisabled, reason gone or failing, at the attempt's time)
// in the same transaction and records the time and reason on the subscription.
type WebhookOutcome struct {
	DeliveryID     string
	SubscriptionID string
	Attempt        WebhookAttempt
	Status         WebhookDeliveryStatus
	NextAttemptAt  time.Time
	Disable        bool
	FailingCutoff  time.Time
	// SandboxDeployment makes the webhook.subscription.disabled notice an outcome may
	// write not live (Event.Livemode): the notice is about the subscription, which no
	// application owns, so only the deployment decides.
	SandboxDeployment bool
}

// WebhookBacklog is the delivery work of every account that is not done yet, as the
// operator's metrics report it.
type WebhookBacklog struct {
	// Pending counts the pending deliveries of active subscriptions: due, waiting for
	// a retry, or in flight. Deliveries parked by an inactive subscription are not
	// counted: no dispatcher sends them until the partner makes it active again.
	Pending int
	// OldestDue is when the one of them that has waited longest for a dispatcher
	// became due: the earliest NextAttemptAt at or before the time asked about, or the
	// zero time when none is due. A delivery in flight is due when its lease ends.
	OldestDue time.Time
}

// WebhookRecovery is what one WebhookStore.RecoverWebhookDeliveries did.
type WebhookRecovery struct {
	// Enqueued counts the deliveries made due.
	Enqueued int
	// Next is the creation time of the oldest event the recovery left for a later
	// one, which continues from there; nil when it reached every event.
	Next *time.Time
}

// WebhookStore keeps webhook subscriptions, their deliveries and the attempt log.
// Every tenant method takes the account id; another account's subscription or
// delivery is CodeNotFound. Deliveries are created by the store itself: every event
// written to the outbox (by any store method) gets, in the same transaction, a pending
// delivery to the account's subscription if it has one, it is active and it accepts
// the event's type (WebhookSubscription.Accepts); an event it does not accept gets no
// delivery, then or later (unless recovered). A delivery keeps the event's ordering key
// and its position among the events written. Pending deliveries of an inactive
// subscription are parked: they are not claimed until the subscription is active
// again.
type WebhookStore interface {
	// CreateWebhook inserts sub with its EventTypes (nil is none: every type). An
	// account that already has a subscription is CodeWebhookExists (decided by a
	// unique constraint, so of two concurrent creates one wins); an unknown account is
	// CodeNotFound. Times are normalised.
	CreateWebhook(ctx context.Context, sub *WebhookSubscription) error
	// Webhook returns the account's subscription or CodeNotFound.
	Webhook(ctx context.Context, accountID, webhookID string) (*WebhookSubscription, error)
	// ListWebhooks returns the account's subscriptions (zero or one), never nil.
	ListWebhooks(ctx context.Context, accountID string) ([]*WebhookSubscription, error)
	// DeleteWebhook deletes the subscription with its deliveries and their attempts,
	// or returns CodeNotFound.
	DeleteWebhook(ctx context.Context, accountID, webhookID string) error
	// RotateWebhookSecret makes secret (sealed) the current secret and the current one
	// the previous secret, valid until previousValidUntil; a previous secret from an
	// earlier rotation is dropped. It sets Active, clears FailingSince, DisabledAt and
	// DisabledReason and returns the subscription as written, or CodeNotFound.
	RotateWebhookSecret(ctx context.Context, accountID, webhookID string, secret []byte, previousValidUntil, now time.Time) (*WebhookSubscription, error)
	// ChangeWebhookURL replaces the URL, sets Active, clears FailingSince, DisabledAt
	// and DisabledReason and returns the subscription as written, or CodeNotFound.
	ChangeWebhookURL(ctx context.Context, accountID, webhookID, url string, now time.Time) (*WebhookSubscription, error)
	// SetWebhookEventTypes replaces the subscription's filter with types (nil or empty:
	// every type), sets UpdatedAt and returns the subscription as written, or
	// CodeNotFound. The new filter applies to events written after the commit;
	// deliveries that exist stay.
	SetWebhookEventTypes(ctx context.Context, accountID, webhookID string, types []string, now time.Time) (*WebhookSubscription, error)
	// EnableWebhook makes an inactive subscription active again, as ChangeWebhookURL
	// does (FailingSince, DisabledAt and DisabledReason cleared, UpdatedAt now), and
	// returns it; its parked deliveries become claimable. An active subscription is
	// returned unchanged, so its failure time (the 72-hour rule) keeps running. An
	// unknown subscription is CodeNotFound.
	EnableWebhook(ctx context.Context, accountID, webhookID string, now time.Time) (*WebhookSubscription, error)
	// RecoverWebhookDeliveries delivers again, in one transaction, at most limit
	// events of the account created at or after since that the subscription accepts,
	// the oldest first by creation time and then by the order of the outbox: a
	// succeeded or failed delivery of one becomes pending and due at now (its attempt
	// count and log continue), and an event without a delivery (it was filtered out or
	// the subscription was inactive or not yet created) gets a new pending delivery due
	// at now, created at now. Events whose delivery is pending are left as they are and
	// neither counted nor part of the limit. webhook.subscription.disabled events are
	// never delivered. The recovery says how many deliveries it made due and, when
	// events remain, the creation time to continue from (WebhookRecovery.Next); a
	// recovery that reaches the limit in the middle of events created at one time stops
	// before them unless they alone fill the limit, so that continuing from Next meets
	// those it made due pending and leaves them. The subscription must be the
	// account's (else CodeNotFound) and active (else CodeConflict, and nothing is
	// written). limit must be positive.
	RecoverWebhookDeliveries(ctx context.Context, accountID, webhookID string, since, now time.Time, limit int) (*WebhookRecovery, error)
	// CreateWebhookTestEvent writes e (an event of the account) to the outbox and
	// returns the delivery it produced for the subscription, with an empty attempt
	// log. The subscription must be the account's (else CodeNotFound), active and
	// accept e's type (else CodeConflict, and nothing is written).
	CreateWebhookTestEvent(ctx context.Context, accountID, webhookID string, e *Event) (*WebhookDelivery, error)

	// ListWebhookDeliveries returns a page of the subscription's deliveries, newest
	// first, each with its attempt log, and the total. An unknown subscription is
	// CodeNotFound.
	ListWebhookDeliveries(ctx context.Context, accountID, webhookID string, p Page) ([]*WebhookDelivery, int, error)
	// WebhookDelivery returns one delivery of the subscription with its attempt log,
	// or CodeNotFound.
	WebhookDelivery(ctx context.Context, accountID, webhookID, deliveryID string) (*WebhookDelivery, error)
	// RetryWebhookDelivery makes a failed or pending delivery of the subscription due
	// at now and returns it with its attempt log. A delivery whose attempt is in flight
	// (its lease has not ended) is returned unchanged, so it is never sent twice at
	// once. A succeeded delivery is CodeConflict, an inactive subscription too; an
	// unknown delivery CodeNotFound. The attempt count continues. A retried delivery
	// still keeps its object's order: it is claimed only after the earlier pending
	// deliveries of its object (ClaimWebhookDeliveries).
	RetryWebhookDelivery(ctx context.Context, accountID, webhookID, deliveryID string, now time.Time) (*WebhookDelivery, error)

	// ClaimWebhookDeliveries takes at most limit pending deliveries of active
	// subscriptions that are due at now, oldest due first, in one transaction: it
	// counts an attempt on each and leases it until leaseUntil by moving its
	// NextAttemptAt there. A dispatcher that crashes leaves the delivery due again when
	// the lease ends, so another one retries it (at-least-once). Concurrent claimers
	// in this or another replica never claim one delivery twice within a lease: on
	// PostgreSQL the claim locks rows and skips those others hold.
	//
	// Deliveries of one object are claimed in commit order. A delivery whose event
	// has an ordering key (Event.OrderingKey) is taken only if no other pending
	// delivery of the same subscription and key was written before it (an earlier one
	// due, waiting for a retry, or parked) and none is in flight (leased until after
	// now): so a later event of a booking or an eSIM is sent only after every earlier
	// one has succeeded or failed for good, and never while another of the object is
	// being sent. "Written before" is the order of the events' inserts, which for one
	// object is its commit order because its writers hold the object's row lock.
	// Deliveries of other keys, and those without a key (webhook.test), do not wait.
	// A delivery that is due but held counts in WebhookBacklog like any other.
	ClaimWebhookDeliveries(ctx context.Context, now, leaseUntil time.Time, limit int) ([]*WebhookJob, error)
	// CompleteWebhookDeliveries records attempts and their outcomes, all in one
	// transaction (a dispatcher batches the outcomes of its workers, so that one commit
	// serves many deliveries). Each attempt is always logged; its delivery and
	// subscription are updated only if the delivery is still pending with that
	// attempt's number and its lease (another dispatcher has not taken it over, and no
	// manual retry intervened). An outcome whose delivery was deleted meanwhile is
	// ignored. Outcomes of one subscription apply in the order of their attempt times.
	// An outcome applied to a delivery with an ordering key also moves the due time of
	// the later pending deliveries of its object: a retry makes every one of them due
	// no earlier than the retry (those a recovery or a manual retry made pending too),
	// and the end of the delivery (succeeded or failed) makes those that were never
	// attempted due at the attempt's time, so that claims neither pass over them while
	// they must wait nor leave them waiting after. One attempted before keeps the due
	// time it has then: it may be a backoff of its own, which this must not shorten,
	// so it also waits out the time a hold gave it.
	CompleteWebhookDeliveries(ctx context.Context, outcomes []*WebhookOutcome) error
	// WebhookBacklog returns the backlog at now. Like the dispatcher's claim it spans
	// every account, so it takes no account id: it serves the operator's metrics and
	// must never answer a tenant. It reads the pending deliveries alone, through the
	// index of the claim, so its cost grows with the backlog, not with the delivery
	// log.
	WebhookBacklog(ctx context.Context, now time.Time) (WebhookBacklog, error)
}
