// Package devidp is the built-in development identity provider: a small but real
// OpenID Connect provider that the skygate process serves itself, so that employee
// login (internal/login) works with no external IdP. It is refused in production.
//
// It owns, under the path of its issuer URL (by default SKYGATE_PUBLIC_URL + /dev/idp):
//   - discovery at /.well-known/openid-configuration and the JWKS at /jwks;
//   - /authorize: a login page where the tester picks a test employee (alice, bob,
//     carol) or types a custom one and ticks groups, then a redirect with a code;
//   - /token: the authorization_code grant for its one confidential client
//     (client_secret_basic or client_secret_post), PKCE S256 when the request used it,
//     answering an opaque access token and an ES256 ID token carrying the nonce;
//   - /userinfo: sub, name, preferred_username, email and groups for the access token.
//
// Codes live 60 s and work once; access tokens live 5 minutes. Everything, including
// the signing key, is in memory and lost on restart: it is a single-process tool.
//
// HTTPClient gives skygate a client that reaches the provider in-process, so the back
// channel (discovery, token, userinfo, JWKS) works whatever address the public URL
// names and whether or not the listener is reachable from the process itself.
package devidp
