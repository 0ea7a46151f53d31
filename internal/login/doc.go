// Package login is employee login (SPEC.md §5.2, CONTRACT.md §2): the authorization
// code flow with PKCE between the admin console (a public client, the SPA) and
// Skygate, in front of an OpenID Connect identity provider that is the source of
// truth for employees.
//
// It owns
//   - GET /api/v1/auth/idp/login (Handler.Login): checks redirect_uri against the
//     whitelist by exact string match, requires a PKCE S256 code_challenge, signs the
//     upstream state and redirects to the provider;
//   - GET /api/v1/auth/idp/callback (Handler.Callback): verifies the state, exchanges
//     the provider's code (golang.org/x/oauth2), verifies the ID token and its nonce
//     (github.com/coreos/go-oidc), reads userinfo, maps groups to roles and scopes
//     (Policy), stores a one-time code (skygate.LoginCodeStore) and redirects to the
//     SPA with it;
//   - the authorization_code grant of POST /oauth/v2/token (Grant): consumes the code
//     once, checks the PKCE verifier, and issues the employee's access token.
//
// The upstream state is base64url(JSON).base64url(HMAC-SHA256), keyed with a subkey of
// seal.PurposeLoginState; it carries the SPA's redirect_uri, code_challenge and state,
// the OIDC nonce, a hash of the browser-binding cookie, and its expiry (StateTTL). It
// is signed, not encrypted: nothing in it is secret. The PKCE verifier Skygate uses
// towards the provider is derived from the nonce with a separate subkey, so it never
// travels through the browser.
//
// The provider's tokens never leave this package: they are used for the exchange and
// userinfo call, then dropped. Nothing of them is stored or returned.
//
// Errors of the two browser routes are redirects to the SPA with error= when the
// redirect URI is known to be trusted, and otherwise *skygate.Error values with
// CodeBadRequest for the HTTP layer to render as problem+json. Errors of the grant are
// *oauth.Error values.
package login
