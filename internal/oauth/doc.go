// Package oauth is the identity component of Skygate: it issues and verifies the
// service's own access tokens.
//
// It owns
//   - client secrets: generation (NewClientSecret) and keyed hashing (SecretHasher);
//   - signing keys: ES256 keys kept encrypted in a skygate.KeyStore, shared by every
//     replica, rotated with a pre-publication period and pruned once no live token can
//     carry them (KeyManager), and the JWKS document that publishes them;
//   - access tokens: JWS compact ES256 tokens with typ at+jwt (RFC 9068), signed by
//     Issuer and checked by Verifier with go-jose, the claims in encoding/json; the
//     Verifier caches successful verifications;
//   - the token endpoint POST /oauth/v2/token (TokenHandler) with its grants
//     (Grant; ClientCredentials now, the employee authorization_code grant plugs in
//     the same way), its RFC 6749 §5.2 errors (Error), and the discovery documents.
//   - token revocation (RFC 7009, RevocationHandler) and introspection (RFC 7662,
//     IntrospectionHandler), which authenticate clients as the token endpoint does
//     (ClientEndpoint); revoked jtis live in each process's RevocationList, which the
//     Verifier asks on every verification.
//
// Key ids are RFC 7638 JWK thumbprints (SHA-256, base64url), so anyone holding a public
// key can recompute its kid.
//
// Account suspension is not checked here when a token is verified: the token
// middleware of the HTTP layer does that on every request.
package oauth
