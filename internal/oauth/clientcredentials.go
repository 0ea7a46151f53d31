package oauth

import (
	"context"
	"errors"
	"strings"

	"github.com/skygate/skygate"
)

// ClientAuthenticator authenticates confidential clients (B2B applications) by their
// client secret. It is the one place where client secrets are checked.
type ClientAuthenticator struct {
	apps   skygate.ApplicationStore
	hasher *SecretHasher
}

// NewClientAuthenticator returns an authenticator over apps.
func NewClientAuthenticator(apps skygate.ApplicationStore, hasher *SecretHasher) *ClientAuthenticator {
	return &ClientAuthenticator{apps: apps, hasher: hasher}
}

// Authenticate returns the application of c and its account. A missing secret, an
// unknown client_id and a wrong secret are all invalid_client (401), indistinguishable
// in body and, as far as the hash goes, in timing: an unknown client is checked
// against a dummy hash. Store failures are returned as they are (server_error).
func (a *ClientAuthenticator) Authenticate(ctx context.Context, c ClientAuth) (*skygate.Application, *skygate.Account, error) {
	fail := &Error{Code: CodeInvalidClient, Description: "client authentication failed", basic: c.Method == AuthMethodBasic}
	if c.ID == "" || c.Secret == "" {
		return nil, nil, fail
	}
	app, acct, err := a.apps.ApplicationByClientID(ctx, c.ID)
	switch {
	case skygate.IsCode(err, skygate.CodeNotFound):
		a.hasher.VerifyUnknown(c.Secret)
		return nil, nil, fail
	case err != nil:
		return nil, nil, err
	case acct == nil:
		return nil, nil, errors.New("oauth: application without account")
	case !a.hasher.Verify(c.Secret, app.SecretHash):
		return nil, nil, fail
	}
	return app, acct, nil
}

// ClientCredentialsGrant is the client_credentials grant of B2B applications (RFC 6749
// §4.4). The token's sub and client_id are the application's client_id and account_id
// its account.
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
	scopes, err := NarrowScopes(req.Param("scope"), app.AllowedScopes)
	if err != nil {
		return nil, err
	}
	token, _, err := g.issuer.Issue(Claims{
		Subject: app.ClientID, ClientID: app.ClientID, AccountID: acct.ID, Scopes: scopes,
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
