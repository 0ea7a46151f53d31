package login

import (
	"context"
	"crypto/sha256"
	"strings"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/oauth"
)

// ConsoleClientID is the client_id of the admin console: the client_id claim of every
// employee token, and the only client_id the grant accepts.
const ConsoleClientID = "skygate-admin-console"

// TokenTTL is the lifetime of an employee token (SPEC.md §5.2 item 7). The Issuer
// given to the grant should have it.
const TokenTTL = time.Hour

// maxCodeLen bounds the code the grant hashes; real codes have 43 characters.
const maxCodeLen = 256

// GrantConfig configures a Grant.
type GrantConfig struct {
	Codes skygate.LoginCodeStore
	// Issuer signs the employee tokens; give it TokenTTL.
	Issuer *oauth.Issuer
	// Clock defaults to time.Now.
	Clock skygate.Clock
}

// Grant is the authorization_code grant of employee login (RFC 6749 §4.1.3 with RFC
// 7636 PKCE). The admin console is a public client: it sends no secret, and its
// client_id is optional.
type Grant struct {
	codes  skygate.LoginCodeStore
	issuer *oauth.Issuer
	clock  skygate.Clock
}

var _ oauth.Grant = (*Grant)(nil)

// NewGrant returns the grant.
func NewGrant(cfg GrantConfig) *Grant {
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	return &Grant{codes: cfg.Codes, issuer: cfg.Issuer, clock: cfg.Clock}
}

// Type returns "authorization_code".
func (g *Grant) Type() string { return oauth.GrantAuthorizationCode }

// Exchange checks the request, consumes the code and issues the employee token.
//
//   - A client secret (Basic or client_secret) is invalid_client (401): a public
//     client has none. A client_id other than the console's is invalid_client too.
//   - A missing code, code_verifier or redirect_uri (the login request always has one,
//     so RFC 6749 §4.1.3 requires it here), or a verifier that is not 43–128
//     characters of [A-Za-z0-9-._~], is invalid_request; nothing is consumed.
//   - The code is consumed before anything else about it is checked, so a code that
//     fails any check below is used up (RFC 6749 §4.1.2: a code works once).
//     Unknown, used or expired: invalid_grant.
//   - The verifier's S256 challenge must equal the stored code_challenge, and
//     redirect_uri must equal the one the code was sent to: else invalid_grant.
//   - An employee with no role is access_denied (403) and gets no token.
//
// The token has iss, aud, sub (the employee's identifier at the provider), client_id
// (the console's), scopes, roles, iat, exp and jti, and no account_id.
func (g *Grant) Exchange(ctx context.Context, req *oauth.TokenRequest) (*oauth.TokenResponse, error) {
	switch {
	case req.Client.Method != "":
		return nil, oauth.Errorf(oauth.CodeInvalidClient, "the admin console is a public client: send no client secret")
	case req.Client.ID != "" && req.Client.ID != ConsoleClientID:
		return nil, oauth.Errorf(oauth.CodeInvalidClient, "unknown client_id for the authorization_code grant")
	}
	code, verifier, redirectURI := req.Params["code"], req.Params["code_verifier"], req.Params["redirect_uri"]
	switch {
	case code == "":
		return nil, oauth.Errorf(oauth.CodeInvalidRequest, "code is required")
	case verifier == "":
		return nil, oauth.Errorf(oauth.CodeInvalidRequest, "code_verifier is required")
	case redirectURI == "":
		return nil, oauth.Errorf(oauth.CodeInvalidRequest, "redirect_uri is required: the one the login started with")
	case !validVerifier(verifier):
		return nil, oauth.Errorf(oauth.CodeInvalidRequest, "code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9, '-', '.', '_' and '~'")
	case len(code) > maxCodeLen:
		return nil, oauth.Errorf(oauth.CodeInvalidGrant, "the code is unknown, used or expired")
	}
	hash := sha256.Sum256([]byte(code))
	lc, err := g.codes.ConsumeLoginCode(ctx, hash[:], g.clock())
	switch {
	case skygate.IsCode(err, skygate.CodeNotFound):
		return nil, oauth.Errorf(oauth.CodeInvalidGrant, "the code is unknown, used or expired")
	case err != nil:
		return nil, err
	case !verifierMatches(verifier, lc.CodeChallenge):
		return nil, oauth.Errorf(oauth.CodeInvalidGrant, "code_verifier does not match the code_challenge")
	case redirectURI != lc.RedirectURI:
		return nil, oauth.Errorf(oauth.CodeInvalidGrant, "redirect_uri is not the one the code was issued for")
	case len(lc.Roles) == 0:
		return nil, oauth.Errorf(oauth.CodeAccessDenied, "the employee has no role in Skygate")
	}
	token, _, err := g.issuer.Issue(oauth.Claims{
		Subject: lc.Subject, ClientID: ConsoleClientID, Scopes: lc.Scopes, Roles: lc.Roles,
	})
	if err != nil {
		return nil, err
	}
	return &oauth.TokenResponse{
		AccessToken: token,
		TokenType:   "Bearer",
		ExpiresIn:   int64(g.issuer.TTL() / time.Second),
		Scope:       strings.Join(lc.Scopes, " "),
	}, nil
}
