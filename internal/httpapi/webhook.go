package httpapi

import (
	"net/http"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/webhook"
)

// Webhook subscription routes: one subscription per account, signed deliveries with a
// log of every attempt.

const webhookPath = "/api/v1/b2b/webhooks"

// createWebhook answers 201 with the subscription (never the secret) and Location; a
// second subscription of the account is 409 WebhookExists.
func (s *Server) createWebhook(w http.ResponseWriter, r *http.Request) error {
	var req webhook.CreateRequest
	if _, err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	sub, err := s.deps.Webhooks.Create(r.Context(), accountIDOf(r.Context()), req)
	if err != nil {
		return err
	}
	w.Header().Set("Location", webhookPath+"/"+sub.ID)
	return writeJSON(w, http.StatusCreated, sub)
}

func (s *Server) listWebhooks(w http.ResponseWriter, r *http.Request) error {
	subs, err := s.deps.Webhooks.List(r.Context(), accountIDOf(r.Context()))
	return reply(w, http.StatusOK)(skygate.NewList(subs, 0, len(subs)), err)
}

func (s *Server) getWebhook(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.deps.Webhooks.Get(r.Context(), accountIDOf(r.Context()), r.PathValue("webhookID")))
}

func (s *Server) deleteWebhook(w http.ResponseWriter, r *http.Request) error {
	if err := s.deps.Webhooks.Delete(r.Context(), accountIDOf(r.Context()), r.PathValue("webhookID")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

type secretRequest struct {
	Secret string `json:"secret"`
}

// rotateWebhookSecret replaces the secret; the old one still signs (second signature)
// for SKYGATE_WEBHOOK_GRACE. The subscription becomes active again.
func (s *Server) rotateWebhookSecret(w http.ResponseWriter, r *http.Request) error {
	var req secretRequest
	if _, err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	return reply(w, http.StatusOK)(s.deps.Webhooks.RotateSecret(r.Context(), accountIDOf(r.Context()), r.PathValue("webhookID"), req.Secret))
}

type urlRequest struct {
	URL string `json:"url"`
}

func (s *Server) changeWebhookURL(w http.ResponseWriter, r *http.Request) error {
	var req urlRequest
	if _, err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	return reply(w, http.StatusOK)(s.deps.Webhooks.ChangeURL(r.Context(), accountIDOf(r.Context()), r.PathValue("webhookID"), req.URL))
}

// testWebhook sends a webhook.test event through the outbox: 202 with its delivery.
// Each subscription may send Limits.WebhookTest of them (429 beyond), counted once the
// subscription is found, so that another account's id stays a 404.
func (s *Server) testWebhook(w http.ResponseWriter, r *http.Request) error {
	acct, id := accountIDOf(r.Context()), r.PathValue("webhookID")
	if _, err := s.deps.Webhooks.Get(r.Context(), acct, id); err != nil {
		return err
	}
	if err := s.limit(w, r, limitWebhookTest, "webhook-test:"+acct+"/"+id, s.deps.Limits.WebhookTest); err != nil {
		return err
	}
	livemode, err := s.livemode(r)
	if err != nil {
		return err
	}
	return reply(w, http.StatusAccepted)(s.deps.Webhooks.Test(r.Context(), acct, id, livemode))
}

func (s *Server) listWebhookDeliveries(w http.ResponseWriter, r *http.Request) error {
	return s.writeDeliveries(w, r, accountIDOf(r.Context()))
}

// writeDeliveries answers a page of the deliveries of the account's subscription
// {webhookID}; another account's subscription is 404.
func (s *Server) writeDeliveries(w http.ResponseWriter, r *http.Request, accountID string) error {
	return writeList(w, r, func(p skygate.Page) ([]*skygate.WebhookDelivery, int, error) {
		return s.deps.Webhooks.Deliveries(r.Context(), accountID, r.PathValue("webhookID"), p)
	})
}

// retryWebhookDelivery makes a failed or pending delivery due now: 202.
func (s *Server) retryWebhookDelivery(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusAccepted)(s.deps.Webhooks.Retry(r.Context(), accountIDOf(r.Context()), r.PathValue("webhookID"), r.PathValue("deliveryID")))
}

// adminListWebhooks answers an account's subscription (zero or one) for employees.
func (s *Server) adminListWebhooks(w http.ResponseWriter, r *http.Request) error {
	accountID := r.PathValue("accountID")
	if _, err := s.deps.Identity.Account(r.Context(), accountID); err != nil {
		return err
	}
	subs, err := s.deps.Webhooks.List(r.Context(), accountID)
	return reply(w, http.StatusOK)(skygate.NewList(subs, 0, len(subs)), err)
}

// adminListWebhookDeliveries answers a page of an account's subscription's deliveries
// for employees.
func (s *Server) adminListWebhookDeliveries(w http.ResponseWriter, r *http.Request) error {
	return s.writeDeliveries(w, r, r.PathValue("accountID"))
}
