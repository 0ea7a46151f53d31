package webhook

import (
	"context"
	"errors"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/seal"
)

// DefaultGrace is how long the previous secret still signs after a rotation
// (SKYGATE_WEBHOOK_GRACE).
const DefaultGrace = 24 * time.Hour

// Config is what a Service needs.
type Config struct {
	Store skygate.WebhookStore
	// Box seals secrets at rest: seal.New(master.DeriveKey(seal.PurposeWebhookSecret)).
	Box *seal.Box
	// Policy validates URLs; its AllowHTTP is !production and its AllowPrivate is
	// SKYGATE_WEBHOOK_ALLOW_PRIVATE.
	Policy Policy
	// Clock is the time source; nil is time.Now.
	Clock skygate.Clock
	// Grace is how long the previous secret still signs after a rotation; zero is
	// DefaultGrace and a negative value means no grace.
	Grace time.Duration
	// Notify, when set, is called after the service made a delivery due (test, retry,
	// recover, enable) so that the dispatcher sends it at once; Dispatcher.Notify fits.
	Notify func()
	// Retention is how long events are kept (SKYGATE_EVENT_RETENTION, whose default
	// is config's): a recovery reaches back at most this far. Required: zero reaches
	// back nowhere.
	Retention time.Duration
}

// Service implements the webhook subscription operations of CONTRACT §5 for the HTTP
// layer. Every method takes the caller's account; another account's subscription or
// delivery, and an id that is not a UUID, is CodeNotFound. Request problems are
// CodeValidation errors whose Fields name "url" and "secret".
type Service struct {
	store  skygate.WebhookStore
	box    *seal.Box
	policy Policy
	now    skygate.Clock
	grace  time.Duration
	notify func()
	keep   time.Duration
}

// NewService returns a Service; Store and Box are required.
func NewService(c Config) *Service {
	s := &Service{store: c.Store, box: c.Box, policy: c.Policy, now: c.Clock, grace: c.Grace, notify: c.Notify, keep: c.Retention}
	if s.now == nil {
		s.now = time.Now
	}
	switch {
	case s.grace == 0:
		s.grace = DefaultGrace
	case s.grace < 0:
		s.grace = 0
	}
	if s.notify == nil {
		s.notify = func() {}
	}
	return s
}

// CreateRequest is the body of POST /api/v1/b2b/webhooks. EventTypes is the filter
// (CheckEventTypes); absent, null or empty, the subscription receives every type.
type CreateRequest struct {
	URL        string   `json:"url"`
	Secret     string   `json:"secret"`
	EventTypes []string `json:"event_types"`
}

// Create subscribes the account (201): the URL, secret and event types are validated
// together (one CodeValidation error lists every problem), the secret is sealed, and
// the new subscription is active. An account that already has one is CodeWebhookExists. The
// returned subscription never carries the secret in its JSON form.
func (s *Service) Create(ctx context.Context, accountID string, req CreateRequest) (*skygate.WebhookSubscription, error) {
	var fields []skygate.FieldError
	if _, err := s.policy.CheckURL(ctx, req.URL); err != nil {
		fields = append(fields, fieldErrors(err)...)
	}
	if err := CheckSecret(req.Secret); err != nil {
		fields = append(fields, fieldErrors(err)...)
	}
	fields = append(fields, CheckEventTypes("event_types", req.EventTypes)...)
	if len(fields) > 0 {
		return nil, skygate.ValidationError(fields...)
	}
	now := s.now()
	w := &skygate.WebhookSubscription{
		ID:         skygate.NewID(),
		AccountID:  accountID,
		URL:        req.URL,
		Active:     true,
		EventTypes: req.EventTypes,
		CreatedAt:  now,
		UpdatedAt:  now,
	}
	w.Secret = s.box.Seal([]byte(req.Secret), secretAD(w.ID))
	if err := s.store.CreateWebhook(ctx, w); err != nil {
		return nil, err
	}
	return w, nil
}

// Get returns the account's subscription.
func (s *Service) Get(ctx context.Context, accountID, webhookID string) (*skygate.WebhookSubscription, error) {
	if !skygate.IsID(webhookID) {
		return nil, errWebhookNotFound
	}
	return s.store.Webhook(ctx, accountID, webhookID)
}

// List returns the account's subscriptions: an empty list or one.
func (s *Service) List(ctx context.Context, accountID string) ([]*skygate.WebhookSubscription, error) {
	return s.store.ListWebhooks(ctx, accountID)
}

// Delete removes the subscription (204) with its pending and past deliveries; events
// written afterwards are not delivered. The account may then create a new one.
func (s *Service) Delete(ctx context.Context, accountID, webhookID string) error {
	if !skygate.IsID(webhookID) {
		return errWebhookNotFound
	}
	return s.store.DeleteWebhook(ctx, accountID, webhookID)
}

// RotateSecret replaces the signing secret (200). For the grace period the previous
// secret keeps signing too: each request carries two signatures, the new one first.
// A second rotation within the grace period drops the oldest secret. Rotation makes
// an inactive subscription active again.
func (s *Service) RotateSecret(ctx context.Context, accountID, webhookID, secret string) (*skygate.WebhookSubscription, error) {
	if err := CheckSecret(secret); err != nil {
		return nil, err
	}
	if !skygate.IsID(webhookID) {
		return nil, errWebhookNotFound
	}
	now := s.now()
	sealed := s.box.Seal([]byte(secret), secretAD(webhookID))
	return s.store.RotateWebhookSecret(ctx, accountID, webhookID, sealed, now.Add(s.grace), now)
}

// ChangeURL replaces the receiving URL after the same checks as Create (200) and makes
// an inactive subscription active again. Pending deliveries go to the new URL.
func (s *Service) ChangeURL(ctx context.Context, accountID, webhookID, url string) (*skygate.WebhookSubscription, error) {
	if _, err := s.policy.CheckURL(ctx, url); err != nil {
		return nil, err
	}
	if !skygate.IsID(webhookID) {
		return nil, errWebhookNotFound
	}
	return s.store.ChangeWebhookURL(ctx, accountID, webhookID, url, s.now())
}

// Test writes a webhook.test event for the account to the outbox and returns its
// pending delivery (202): it is signed, retried and logged like any other event. An
// inactive subscription, or one whose filter leaves webhook.test out, is
// CodeConflict, and nothing is written. livemode is the calling request's (see
// skygate.Event): the event is about no object.
func (s *Service) Test(ctx context.Context, accountID, webhookID string, livemode bool) (*skygate.WebhookDelivery, error) {
	if !skygate.IsID(webhookID) {
		return nil, errWebhookNotFound
	}
	e, err := skygate.NewEvent(accountID, skygate.EventWebhookTest, livemode, skygate.WebhookTestData{
		SubscriptionID: webhookID,
		Message:        "This is a test event from Skygate.",
	}, s.now())
	if err != nil {
		return nil, err
	}
	d, err := s.store.CreateWebhookTestEvent(ctx, accountID, webhookID, e)
	if err != nil {
		return nil, err
	}
	s.notify()
	return d, nil
}

// Deliveries returns a page of the subscription's deliveries, newest first, each with
// its attempts, and the total.
func (s *Service) Deliveries(ctx context.Context, accountID, webhookID string, p skygate.Page) ([]*skygate.WebhookDelivery, int, error) {
	if !skygate.IsID(webhookID) {
		return nil, 0, errWebhookNotFound
	}
	return s.store.ListWebhookDeliveries(ctx, accountID, webhookID, p)
}

// Delivery returns one delivery of the subscription with its attempts.
func (s *Service) Delivery(ctx context.Context, accountID, webhookID, deliveryID string) (*skygate.WebhookDelivery, error) {
	if !skygate.IsID(webhookID) || !skygate.IsID(deliveryID) {
		return nil, errDeliveryNotFound
	}
	return s.store.WebhookDelivery(ctx, accountID, webhookID, deliveryID)
}

// Retry makes a failed or pending delivery due now (202) and returns it; the attempt
// count continues, so a delivery that had used up its retries gets one more attempt.
// A delivery in flight is returned unchanged. A succeeded delivery, or one of an
// inactive subscription, is CodeConflict.
func (s *Service) Retry(ctx context.Context, accountID, webhookID, deliveryID string) (*skygate.WebhookDelivery, error) {
	if !skygate.IsID(webhookID) || !skygate.IsID(deliveryID) {
		return nil, errDeliveryNotFound
	}
	d, err := s.store.RetryWebhookDelivery(ctx, accountID, webhookID, deliveryID, s.now())
	if err != nil {
		return nil, err
	}
	s.notify()
	return d, nil
}

var (
	errWebhookNotFound  = skygate.Errorf(skygate.CodeNotFound, "webhook subscription not found")
	errDeliveryNotFound = skygate.Errorf(skygate.CodeNotFound, "webhook delivery not found")
)

// secretAD binds a sealed secret to its subscription, so a sealed value copied to
// another row does not open.
func secretAD(webhookID string) []byte { return []byte("skygate/webhook-secret/" + webhookID) }

// openSecrets returns the HMAC keys that sign for w at now: the current secret's, then
// the previous one's while its grace period lasts.
func openSecrets(box *seal.Box, w *skygate.WebhookSubscription, now time.Time) ([][]byte, error) {
	current, err := box.Open(w.Secret, secretAD(w.ID))
	if err != nil {
		return nil, err
	}
	key, err := SigningKey(string(current))
	if err != nil {
		return nil, err
	}
	keys := [][]byte{key}
	if w.PreviousSecret != nil && w.PreviousValidUntil != nil && now.Before(*w.PreviousValidUntil) {
		previous, err := box.Open(w.PreviousSecret, secretAD(w.ID))
		if err != nil {
			return nil, err
		}
		if key, err := SigningKey(string(previous)); err == nil {
			keys = append(keys, key)
		}
	}
	return keys, nil
}

// fieldErrors returns the field problems of a CodeValidation error.
func fieldErrors(err error) []skygate.FieldError {
	var e *skygate.Error
	if errors.As(err, &e) {
		return e.Fields
	}
	return nil
}
