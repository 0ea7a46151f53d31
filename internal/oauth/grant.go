package oauth

import (
	"context"
	"slices"
	"strings"

	"github.com/skygate/skygate"
)

// Grant types and client authentication methods of the token endpoint.
const (
	GrantClientCredentials = "client_credentials"
	GrantAuthorizationCode = "authorization_code"

	AuthMethodBasic = "client_secret_basic"
	AuthMethodPost  = "client_secret_post"
)

// Grant is one grant_type of the token endpoint. The TokenHandler parses the request,
// extracts the client credentials and dispatches on Type; the grant decides what it
// needs (a confidential client through ClientAuthenticator, a code, a verifier) and
// returns the token. The employee authorization_code grant implements it too.
type Grant interface {
	// Type is the grant_type value the grant handles.
	Type() string
	// Exchange validates req and returns the response to send. An *Error is sent as it
	// is; any other error is logged and answered with server_error.
	Exchange(ctx context.Context, req *TokenRequest) (*TokenResponse, error)
}

// TokenRequest is a parsed token request.
type TokenRequest struct {
	GrantType string
	// Client is the client authentication the request carried, by either method.
	Client ClientAuth
	// Params are the body parameters other than client_id and client_secret, each
	// present at most once and never empty (RFC 6749 §3.2: empty means omitted).
	Params map[string]string
}

// ClientAuth is the client identification of a token request.
type ClientAuth struct {
	// Method is AuthMethodBasic, AuthMethodPost, AuthMethodPrivateKeyJWT, or "" when
	// neither a secret nor an assertion was sent.
	Method string
	// ID is the client_id, from Basic or the body; it may be set without a secret.
	ID     string
	Secret string
	// CertThumbprint is the x5t#S256 of the verified client certificate the request
	// came with (WithClientCertificate), "" without one.
	CertThumbprint string
	// Assertion is the client_assertion of private_key_jwt (RFC 7523 §2.2), whose
	// client_assertion_type was ClientAssertionType.
	Assertion string
	// admit, set by the TokenHandler when it has Hooks, is called by
	// ClientAuthenticator.Authenticate once the secret is verified; an error fails the
	// authentication with it.
	admit func(clientID string) error
}

// TokenResponse is the body of a successful token response (RFC 6749 §5.1).
type TokenResponse struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int64  `json:"expires_in"`
	Scope       string `json:"scope,omitempty"`
}

// NarrowScopes returns the scopes to grant for the space-separated requested list
// given the allowed ones: all of allowed when requested is empty, else the requested
// scopes that are allowed, in request order (SPEC §5.1: the intersection). A requested
// scope that is well-formed but not allowed, known to the service or not, is left out
// like any other; a scope that is not an RFC 6749 §3.3 scope-token, or an empty
// result, is invalid_scope.
func NarrowScopes(requested string, allowed []string) ([]string, error) {
	if strings.TrimSpace(requested) == "" {
		if len(allowed) == 0 {
			return nil, Errorf(CodeInvalidScope, "the client is allowed no scopes")
		}
		return allowed, nil
	}
	var granted []string
	for _, s := range skygate.ParseScopes(requested) {
		if !isScopeToken(s) {
			return nil, Errorf(CodeInvalidScope, "scope %q has characters a scope may not have", s)
		}
		if slices.Contains(allowed, s) {
			granted = append(granted, s)
		}
	}
	if len(granted) == 0 {
		return nil, Errorf(CodeInvalidScope, "none of the requested scopes is allowed for this client")
	}
	return granted, nil
}

// isScopeToken reports whether s is a scope-token of RFC 6749 §3.3: one or more of
// %x21 / %x23-5B / %x5D-7E.
func isScopeToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x21 || c == 0x22 || c == 0x5C || c > 0x7E {
			return false
		}
	}
	return s != ""
}

// ClientCredentialsGrant is the client_credentials grant of B2B applications (RFC 6749
// §4.4). The token's sub and client_id are the application's client_id and account_id
// its account.
//
// A token of an application bound to a client certificate (ClientCertSHA256) carries
// that binding as its cnf claim (RFC 8705), its aud lists the application's Audiences
// after the service's own (Issuer.Issue), and every token carries the application's
// TokenGeneration as its gen claim: the generation of the application as the grant
// authenticated it, so that a token issued with a secret that a revocation replaced
// (by a replica that had not learnt of it yet) carries the generation it revoked.
//
// A suspended account is answered with invalid_grant (400, "the account is
// suspended") rather than invalid_client: the client did prove its secret, and telling
// the partner why no token comes back saves a support call. The check comes after the
// secret, so it reveals nothing to anyone else.
type ClientCredentialsGrant struct {
	auth   *ClientAuthenticator
	issuer *Issuer
}

// NewClientCredentialsGrant returns the grant, issuing with issuer.
func NewClientCredentialsGrant(auth *ClientAuthenticator, issuer *Issuer) *ClientCredentialsGrant {
	return &ClientCredentialsGrant{auth: auth, issuer: issuer}
}

// Type returns "client_credentials".
func (g *ClientCredentialsGrant) Type() string { return GrantClientCredentials }

// Exchange authenticates the client, narrows the scopes (see NarrowScopes) and issues
// the token.
func (g *ClientCredentialsGrant) Exchange(ctx context.Context, req *TokenRequest) (*TokenResponse, error) {
	app, acct, err := g.auth.Authenticate(ctx, req.Client)
	if err != nil {
		return nil, err
	}
	if acct.Status != skygate.AccountActive {
		return nil, Errorf(CodeInvalidGrant, "the account is suspended")
	}
	scopes, err := NarrowScopes(req.Params["scope"], app.AllowedScopes)
	if err != nil {
		return nil, err
	}
	token, _, err := g.issuer.Issue(Claims{
		Subject: app.ClientID, ClientID: app.ClientID, AccountID: acct.ID, Scopes: scopes,
		CertThumbprint: app.ClientCertSHA256, Generation: app.TokenGeneration, Audience: app.Audiences,
	})
	if err != nil {
		return nil, err
	}
	return &TokenResponse{
		AccessToken: token,
		TokenType:   "Bearer",
		ExpiresIn:   int64(g.issuer.TTL().Seconds()),
		Scope:       strings.Join(scopes, " "),
	}, nil
}
