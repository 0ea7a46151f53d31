package webhook

import (
	"bytes"
	"context"
	"encoding/json/jsontext"
	"encoding/json/v2"
	"fmt"
	"slices"
	"time"

	"github.com/skygate/skygate"
)

// The operations that change what a subscription receives: its event-type filter,
// recovery of past events, and re-enabling.

// MaxRecovered is how many events one recovery makes due at most (a bound on its
// transaction and on the work one call can queue); the partner continues from
// Recovery.NextSince.
const MaxRecovered = 5000

// CheckEventTypes checks a subscription's filter as sent: every element a type a
// subscription may name (skygate.IsSubscribableEventType), none twice. Problems name
// the elements as field[i].
func CheckEventTypes(field string, types []string) []skygate.FieldError {
	var fields []skygate.FieldError
	for i, typ := range types {
		name := fmt.Sprintf("%s[%d]", field, i)
		switch {
		case !skygate.IsSubscribableEventType(typ):
			fields = append(fields, skygate.FieldError{Field: name,
				Message: fmt.Sprintf("unknown event type; one of %v", skygate.SubscribableEventTypes())})
		case slices.Index(types, typ) < i:
			fields = append(fields, skygate.FieldError{Field: name, Message: "repeats an earlier event type"})
		}
	}
	return fields
}

// PatchRequest is the body of PATCH /api/v1/b2b/webhooks/{webhookID}, with JSON
// merge-patch semantics (RFC 7396): EventTypes absent leaves the filter, null or []
// clears it (every type), and an array replaces it.
type PatchRequest struct {
	EventTypes jsontext.Value `json:"event_types,omitzero"`
}

// Patch changes the subscription's filter and returns the subscription (200); an
// empty patch returns it unchanged. The new filter applies to events written from
// then on.
func (s *Service) Patch(ctx context.Context, accountID, webhookID string, req PatchRequest) (*skygate.WebhookSubscription, error) {
	if len(req.EventTypes) == 0 {
		return s.Get(ctx, accountID, webhookID)
	}
	var types []string
	if !bytes.Equal(req.EventTypes, []byte("null")) {
		if err := json.Unmarshal(req.EventTypes, &types); err != nil {
			return nil, skygate.ValidationError(skygate.FieldError{Field: "event_types", Message: "must be an array of event types or null"})
		}
	}
	if fields := CheckEventTypes("event_types", types); fields != nil {
		return nil, skygate.ValidationError(fields...)
	}
	if !skygate.IsID(webhookID) {
		return nil, errWebhookNotFound
	}
	return s.store.SetWebhookEventTypes(ctx, accountID, webhookID, types, s.now())
}

// Enable makes an inactive subscription active again (200), as change-url and
// rotate-secret do, and wakes the dispatcher for its parked deliveries. An active
// subscription is returned unchanged.
func (s *Service) Enable(ctx context.Context, accountID, webhookID string) (*skygate.WebhookSubscription, error) {
	if !skygate.IsID(webhookID) {
		return nil, errWebhookNotFound
	}
	w, err := s.store.EnableWebhook(ctx, accountID, webhookID, s.now())
	if err != nil {
		return nil, err
	}
	s.notify()
	return w, nil
}

// RecoverRequest is the body of POST /api/v1/b2b/webhooks/{webhookID}/recover: Since
// is an RFC 3339 time.
type RecoverRequest struct {
	Since string `json:"since"`
}

// Recovery is the answer of a recovery (202): Enqueued deliveries were made due, of
// the events created at or after Since, the time asked for or the start of the
// retention window when that is later. NextSince is where to call again to continue
// when events remain (MaxRecovered), and null when the recovery reached them all.
type Recovery struct {
	Enqueued  int        `json:"enqueued"`
	Since     time.Time  `json:"since"`
	NextSince *time.Time `json:"next_since"`
}

// Recover delivers again the events of the account created since req.Since that the
// subscription accepts (skygate.WebhookStore's RecoverWebhookDeliveries), the oldest
// MaxRecovered of them at most, reaching back at most the retention window.
// Redelivered events keep their ids, so a receiver that dedupes by webhook-id ignores
// those it had. A time that is not RFC 3339 or is in the future is CodeValidation; an
// inactive subscription is CodeConflict. Repeating a recovery is harmless (it makes
// the same events due again), so it takes no Idempotency-Key, like retry; calling it
// again from NextSince continues it, leaving alone the events it made due that are
// still pending.
func (s *Service) Recover(ctx context.Context, accountID, webhookID string, req RecoverRequest) (*Recovery, error) {
	now := s.now()
	since, err := time.Parse(time.RFC3339Nano, req.Since)
	switch {
	case err != nil:
		return nil, skygate.ValidationError(skygate.FieldError{Field: "since", Message: "must be an RFC 3339 time such as 2026-01-02T15:04:05Z"})
	case since.After(now):
		return nil, skygate.ValidationError(skygate.FieldError{Field: "since", Message: "must not be in the future"})
	}
	if !skygate.IsID(webhookID) {
		return nil, errWebhookNotFound
	}
	if floor := now.Add(-s.keep); since.Before(floor) {
		since = floor
	}
	// Stores keep microseconds: round up, so that no event before since is included.
	if t := since.UTC().Truncate(time.Microsecond); t.Before(since) {
		since = t.Add(time.Microsecond)
	} else {
		since = t
	}
	r, err := s.store.RecoverWebhookDeliveries(ctx, accountID, webhookID, since, now, MaxRecovered)
	if err != nil {
		return nil, err
	}
	if r.Enqueued > 0 {
		s.notify()
	}
	return &Recovery{Enqueued: r.Enqueued, Since: since, NextSince: r.Next}, nil
}
