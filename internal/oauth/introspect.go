package oauth

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/skygate/skygate"
)

// IntrospectionHandler serves POST /oauth/v2/introspect (RFC 7662). The caller
// authenticates as a client whose application is allowed skygate.ScopeOAuthIntrospect;
// another client is refused 403 unauthorized_client, a failed authentication is 401
// invalid_client. A token is active when it verifies (signature, issuer, audience,
// times, not revoked), belongs to the caller's own account, its application still
// exists in that account with no later revocation of its tokens (gen), and the account
// is active. Everything else, a token of another account included, is
// {"active":false} and nothing more, so that the answer does not tell why.
type IntrospectionHandler struct {
	*ClientEndpoint
	Applications *ApplicationCache
}

// Introspection is the body of an introspection response (RFC 7662 §2.2); only Active
// is sent for an inactive token.
type Introspection struct {
	Active    bool          `json:"active"`
	Scope     string        `json:"scope,omitempty"`
	ClientID  string        `json:"client_id,omitempty"`
	Subject   string        `json:"sub,omitempty"`
	AccountID string        `json:"account_id,omitempty"`
	TokenType string        `json:"token_type,omitempty"`
	Issuer    string        `json:"iss,omitempty"`
	Audience  audience      `json:"aud,omitempty"`
	ExpiresAt int64         `json:"exp,omitempty"`
	IssuedAt  int64         `json:"iat,omitempty"`
	ID        string        `json:"jti,omitempty"`
	Cnf       *confirmation `json:"cnf,omitempty"`
}

// inactive is the whole answer about an inactive token.
var inactive = []byte(`{"active":false}`)

func (h *IntrospectionHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.serve(w, r, "introspection", h.introspect)
}

func (h *IntrospectionHandler) introspect(ctx context.Context, req *TokenRequest, app *skygate.Application, acct *skygate.Account) ([]byte, error) {
	if !slices.Contains(app.AllowedScopes, skygate.ScopeOAuthIntrospect) {
		return nil, &Error{Code: CodeUnauthorizedClient, Status: http.StatusForbidden,
			Description: "the client may not introspect tokens: its application is not allowed the scope " + skygate.ScopeOAuthIntrospect}
	}
	token := req.Params["token"]
	if token == "" {
		return nil, Errorf(CodeInvalidRequest, "token is required")
	}
	claims, err := h.Verifier.Verify(ctx, token)
	if err != nil || claims.AccountID == "" || claims.AccountID != acct.ID {
		return inactive, nil
	}
	tokenApp, tokenAcct, err := h.Applications.TokenApplication(ctx, claims.ClientID)
	switch {
	case skygate.IsCode(err, skygate.CodeNotFound):
		return inactive, nil
	case err != nil:
		return nil, err
	case tokenApp.AccountID != claims.AccountID, claims.Generation < tokenApp.TokenGeneration,
		tokenAcct == nil, tokenAcct.Status != skygate.AccountActive:
		return inactive, nil
	}
	body, err := json.Marshal(&Introspection{
		Active: true, Scope: strings.Join(claims.Scopes, " "), ClientID: claims.ClientID,
		Subject: claims.Subject, AccountID: claims.AccountID, TokenType: "Bearer",
		Issuer: claims.Issuer, Audience: claims.Audience,
		ExpiresAt: claims.ExpiresAt.Unix(), IssuedAt: claims.IssuedAt.Unix(), ID: claims.ID,
		Cnf: certConfirmation(claims.CertThumbprint),
	})
	return body, err
}

// certConfirmation is the cnf member of a token bound to the certificate with
// thumbprint, nil for an unbound one.
func certConfirmation(thumbprint string) *confirmation {
	if thumbprint == "" {
		return nil
	}
	return &confirmation{X5tS256: thumbprint}
}
