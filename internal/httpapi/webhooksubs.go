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

// recoverWebhook makes every event since the given time that the filter accepts due
// again: 202 {"enqueued","since"}. Repeating it only sends the same events again
// (receivers dedupe by webhook-id), so it takes no Idempotency-Key, like retry.
func (s *Server) recoverWebhook(w http.ResponseWriter, r *http.Request) error {
	var req webhook.RecoverRequest
	if _, err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	return reply(w, http.StatusAccepted)(s.deps.Webhooks.Recover(r.Context(), accountIDOf(r.Context()), r.PathValue("webhookID"), req))
}

// enableWebhook makes an inactive subscription active again: 200 with the
// subscription; an active one is answered as it is.
func (s *Server) enableWebhook(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.deps.Webhooks.Enable(r.Context(), accountIDOf(r.Context()), r.PathValue("webhookID")))
}
