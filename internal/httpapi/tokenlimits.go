package httpapi

import (
	"net/http"

	"github.com/skygate/skygate/internal/oauth"
)

// The token endpoint's limits. Before a client has authenticated, the work a request
// costs (a store lookup of the client_id, a secret check, a login code's consumption)
// is counted against its source address: nothing a request claims (a username, a
// client_id) chooses or escapes that allowance, and no one who knows a partner's
// client_id can use up the partner's. A request that authenticates a client is given
// back to its source and counted against that client instead, so partners behind one
// address (a NAT) neither share an allowance nor use up the address's.

// limitTokens guards the token endpoint: a request is counted against its source's
// allowance before anything of it is read, and a flood is refused there.
func (s *Server) limitTokens(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := s.limit(w, r, limitTokenSource, sourceKey(s.source(r)), s.deps.Limits.TokenSource); err != nil {
			s.writeError(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// TokenHooks returns what the token endpoint (oauth.TokenHandler.Hooks) must tell this
// server: which client a request authenticated as, and which authentications failed.
func (s *Server) TokenHooks() oauth.TokenHooks { return tokenHooks{s} }

type tokenHooks struct{ s *Server }

// Authenticated moves r from its source's allowance, which limitTokens charged, to the
// client's, and refuses it when the client's is used up. The RateLimit fields then
// describe the client's allowance, not the source's.
func (h tokenHooks) Authenticated(w http.ResponseWriter, r *http.Request, clientID string) error {
	s, limits := h.s, h.s.deps.Limits
	if limits.Limiter != nil {
		if err := limits.Limiter.Refund(r.Context(), sourceKey(s.source(r)), limits.TokenSource); err != nil {
			s.log.WarnContext(r.Context(), "rate limiter failed; not refunding", "err", err)
		}
	}
	hdr := w.Header()
	hdr.Del("RateLimit-Limit")
	hdr.Del("RateLimit-Remaining")
	hdr.Del("RateLimit-Reset")
	return s.limit(w, r, limitToken, "client:"+clientID, limits.Token)
}

// WriteRefusal writes the 429 of a client over its allowance, as every 429.
func (h tokenHooks) WriteRefusal(w http.ResponseWriter, r *http.Request, err error) {
	h.s.writeError(w, r, err)
}

// maxLoggedClientID bounds the client_id that a failed authentication logs, in bytes;
// issued ids have 28.
const maxLoggedClientID = 128

// AuthenticationFailed logs the failure at warn with the client_id as sent (cut to
// maxLoggedClientID bytes; the log's JSON encoding escapes the rest), the source
// address and the request id, so that an operator can tell a partner's broken
// deployment from someone guessing.
func (h tokenHooks) AuthenticationFailed(w http.ResponseWriter, r *http.Request, clientID string) {
	if len(clientID) > maxLoggedClientID {
		clientID = clientID[:maxLoggedClientID]
	}
	h.s.log.WarnContext(r.Context(), "client authentication failed", "client_id", clientID,
		"source", addrText(h.s.source(r)), "request_id", requestIDOf(r.Context()))
}
