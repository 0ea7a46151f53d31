package oauth

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/skygate/skygate"
)

// Paths of the revocation (RFC 7009) and introspection (RFC 7662) endpoints, relative
// to SKYGATE_PUBLIC_URL.
const (
	RevocationPath    = "/oauth/v2/revoke"
	IntrospectionPath = "/oauth/v2/introspect"
)

// ClientEndpoint is what the revocation and introspection endpoints share with the
// token endpoint: the request body (form or JSON, at most MaxTokenRequestBody bytes),
// client authentication by ClientAuthenticator with the same methods (a secret,
// private_key_jwt, or tls_client_auth with the certificate of WithClientCertificate),
// the TokenHooks
// (rate limits, failed authentications), and RFC 6749 §5.2 error bodies with
// Cache-Control: no-store.
type ClientEndpoint struct {
	Clients  *ClientAuthenticator
	Verifier *Verifier
	Log      *slog.Logger
	// Transient and Hooks are TokenHandler's.
	Transient func(error) bool
	Hooks     TokenHooks
}

// serve parses r, authenticates its client and calls handle, whose body it writes
// with status 200; a nil body writes none. Errors are answered as the token endpoint
// answers them.
func (e *ClientEndpoint) serve(w http.ResponseWriter, r *http.Request, what string,
	handle func(ctx context.Context, req *TokenRequest, app *skygate.Application, acct *skygate.Account) ([]byte, error)) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, r, &Error{Code: CodeInvalidRequest, Description: "the " + what + " endpoint accepts POST only", Status: http.StatusMethodNotAllowed})
		return
	}
	req, err := parseTokenRequest(w, r)
	if err == nil {
		req.Client.CertThumbprint = clientCertificate(r.Context())
		if e.Hooks != nil {
			req.Client.admit = func(clientID string) error {
				if err := e.Hooks.Authenticated(w, r, clientID); err != nil {
					return &refusal{err}
				}
				return nil
			}
		}
		var (
			app  *skygate.Application
			acct *skygate.Account
			body []byte
		)
		if app, acct, err = e.Clients.Authenticate(r.Context(), req.Client); err == nil {
			if body, err = handle(r.Context(), req, app, acct); err == nil {
				if body == nil {
					w.Header().Set("Cache-Control", "no-store")
					w.Header().Set("Pragma", "no-cache")
					w.WriteHeader(http.StatusOK)
					return
				}
				writeJSON(w, http.StatusOK, body)
				return
			}
		}
	}
	if ref, ok := errors.AsType[*refusal](err); ok {
		e.Hooks.WriteRefusal(w, r, ref.err)
		return
	}
	oe := asError(err)
	switch {
	case oe.Code == CodeServerError && e.Transient != nil && e.Transient(err):
		e.Log.WarnContext(r.Context(), "database unavailable", "err", err)
		oe = &Error{Code: CodeUnavailable, Description: "the service is temporarily unavailable; retry shortly",
			Status: http.StatusServiceUnavailable, Err: err}
		w.Header().Set("Retry-After", "1")
	case oe.Code == CodeServerError:
		e.Log.ErrorContext(r.Context(), what+" request failed", "err", err)
	case oe.Code == CodeInvalidClient && e.Hooks != nil:
		e.Hooks.AuthenticationFailed(w, r, sentClientID(r, req))
	}
	writeError(w, r, oe)
}

// RevocationHandler serves POST /oauth/v2/revoke (RFC 7009): the authenticated client
// names one of its access tokens in token (token_type_hint is accepted and, with one
// kind of token, ignored), which is then refused everywhere (RevocationList) until it
// expires. A token of another client, or one that is unknown, expired, revoked
// already or not a token at all, is answered the same 200 and changes nothing (RFC
// 7009 §2.2); a missing token is invalid_request.
type RevocationHandler struct {
	*ClientEndpoint
	Revocations *RevocationList
}

func (h *RevocationHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.serve(w, r, "revocation", h.revoke)
}

func (h *RevocationHandler) revoke(ctx context.Context, req *TokenRequest, app *skygate.Application, acct *skygate.Account) ([]byte, error) {
	token := req.Params["token"]
	if token == "" {
		return nil, Errorf(CodeInvalidRequest, "token is required")
	}
	now := h.Verifier.clock()
	claims, err := h.Verifier.VerifyAt(ctx, token, now)
	if err != nil || claims.ClientID != app.ClientID || claims.AccountID != acct.ID {
		return nil, nil
	}
	return nil, h.Revocations.Revoke(ctx, &skygate.TokenRevocation{
		JTI: claims.ID, AccountID: acct.ID, ClientID: app.ClientID,
		ExpiresAt: claims.ExpiresAt, RevokedAt: now,
	})
}
