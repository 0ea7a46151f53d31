package httpapi

import (
	"net/http"

	"github.com/skygate/skygate/internal/webhook"
)

// The routes that change what a subscription receives: its event-type filter,
// recovery of past events, and re-enabling.

// patchWebhook changes the subscription's event_types with JSON merge-patch semantics
// (RFC 7396; application/merge-patch+json or application/json): absent leaves the
// filter, null or [] clears it, an array replaces it. 200 with the subscription.
func (s *Server) patchWebhook(w http.ResponseWriter, r *http.Request) error {
	var req webhook.PatchRequest
	if _, err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	return reply(w, http.StatusOK)(s.deps.Webhooks.Patch(r.Context(), accountIDOf(r.Context()), r.PathValue("webhookID"), req))
}

// recoverWebhook makes the oldest events since the given time that the filter
// accepts due again, webhook.MaxRecovered at most: 202 {"enqueued","since",
// "next_since"}. Repeating it only sends the same events again (receivers dedupe by
// webhook-id), so it takes no Idempotency-Key, like retry. Each subscription may
// recover Limits.WebhookRecover times (429 beyond), counted once the subscription is
// found, so that another account's id stays a 404: a call queues thousands of
// deliveries, and the partner paging through next_since should not do it faster than
// the dispatcher sends them.
func (s *Server) recoverWebhook(w http.ResponseWriter, r *http.Request) error {
	var req webhook.RecoverRequest
	if _, err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	acct, id := accountIDOf(r.Context()), r.PathValue("webhookID")
	if _, err := s.deps.Webhooks.Get(r.Context(), acct, id); err != nil {
		return err
	}
	if err := s.limit(w, r, limitWebhookRecover, "webhook-recover:"+acct+"/"+id, s.deps.Limits.WebhookRecover); err != nil {
		return err
	}
	return reply(w, http.StatusAccepted)(s.deps.Webhooks.Recover(r.Context(), acct, id, req))
}

// enableWebhook makes an inactive subscription active again: 200 with the
// subscription; an active one is answered as it is.
func (s *Server) enableWebhook(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.deps.Webhooks.Enable(r.Context(), accountIDOf(r.Context()), r.PathValue("webhookID")))
}
