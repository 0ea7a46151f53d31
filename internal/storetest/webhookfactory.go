package storetest

import (
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// NewWebhook returns an active subscription of the account with a random id and
// sealed secret, created at T0, not yet stored; opts change it.
func NewWebhook(accountID string, opts ...func(*skygate.WebhookSubscription)) *skygate.WebhookSubscription {
	w := &skygate.WebhookSubscription{
		ID:        skygate.NewID(),
		AccountID: accountID,
		URL:       "https://hooks.example.com/" + NewID(),
		Active:    true,
		Secret:    []byte("sealed-" + NewID()),
		CreatedAt: T0,
		UpdatedAt: T0,
	}
	for _, o := range opts {
		o(w)
	}
	return w
}

// MustCreateWebhook stores NewWebhook(accountID, opts...) and returns it as stored.
func MustCreateWebhook(tb testing.TB, s skygate.Store, accountID string, opts ...func(*skygate.WebhookSubscription)) *skygate.WebhookSubscription {
	tb.Helper()
	w := NewWebhook(accountID, opts...)
	MustNoError(tb, s.CreateWebhook(tb.Context(), w), "CreateWebhook")
	return w
}

// MustNewEvent returns a live event of the account with a little data, created at now.
func MustNewEvent(tb testing.TB, accountID, typ string, now time.Time) *skygate.Event {
	tb.Helper()
	e, err := skygate.NewEvent(accountID, typ, true, map[string]string{"n": NewID()}, now)
	MustNoError(tb, err, "NewEvent")
	return e
}

// MustClaim claims at most limit deliveries due at now, leased until leaseUntil.
func MustClaim(tb testing.TB, s skygate.Store, now, leaseUntil time.Time, limit int) []*skygate.WebhookJob {
	tb.Helper()
	jobs, err := s.ClaimWebhookDeliveries(tb.Context(), now, leaseUntil, limit)
	MustNoError(tb, err, "ClaimWebhookDeliveries")
	return jobs
}
