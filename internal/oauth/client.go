package oauth

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/seal"
)

// ClientSecretPrefix starts every client secret, so that secret scanners and people
// recognize a leaked one.
const ClientSecretPrefix = "sks_"

// NewClientSecret returns a new client secret: ClientSecretPrefix followed by 32
// random bytes in base64url without padding (47 characters in all).
func NewClientSecret() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return ClientSecretPrefix + base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// SecretHasher computes and checks the stored form of client secrets: HMAC-SHA256
// keyed with a subkey of the master key (seal.PurposeClientSecret).
//
// A slow password hash would add nothing: the secrets carry 256 bits of entropy, so
// a leaked hash cannot be brute-forced, and the keyed hash is useless without the
// master key. It keeps the token endpoint fast. SecretHasher is safe for concurrent
// use.
type SecretHasher struct {
	key   []byte
	dummy []byte
}

// NewSecretHasher returns the hasher of box's master key. Every process that hashes or
// checks secrets (the server, the bootstrap command) must use the same master key.
func NewSecretHasher(box *seal.Box) *SecretHasher {
	h := &SecretHasher{key: box.DeriveKey(seal.PurposeClientSecret)}
	h.dummy = h.Hash("no client has this secret")
	return h
}

// Hash returns the 32-byte HMAC-SHA256 of secret; store this, never the secret.
func (h *SecretHasher) Hash(secret string) []byte {
	m := hmac.New(sha256.New, h.key)
	m.Write([]byte(secret))
	return m.Sum(nil)
}

// Verify reports whether secret hashes to hash. The comparison takes the same time
// wherever the first difference is.
func (h *SecretHasher) Verify(secret string, hash []byte) bool {
	return hmac.Equal(h.Hash(secret), hash)
}

// VerifyUnknown does the work of Verify against a hash that no secret matches and
// returns false. The token endpoint calls it for unknown clients so that the response
// time does not tell whether a client exists.
func (h *SecretHasher) VerifyUnknown(secret string) bool {
	h.Verify(secret, h.dummy)
	return false
}

// ClientAuthenticator authenticates confidential clients (B2B applications) by their
// client secret, by a client assertion (private_key_jwt) once AcceptAssertions was
// called, or by their client certificate (tls_client_auth, tlsclient.go). It is the one
// place where client credentials are checked.
type ClientAuthenticator struct {
	apps   *ApplicationCache
	hasher *SecretHasher
	// assertions, set by AcceptAssertions, checks private_key_jwt (clientassertion.go).
	assertions *clientAssertions
}

// NewClientAuthenticator returns an authenticator over apps.
func NewClientAuthenticator(apps *ApplicationCache, hasher *SecretHasher) *ClientAuthenticator {
	return &ClientAuthenticator{apps: apps, hasher: hasher}
}

// Authenticate returns the application of c and its account. A request with a
// client_id in the body, no secret (and no HTTP Basic) and a verified client
// certificate is tls_client_auth (authenticateCertificate). Otherwise a missing secret, an
// unknown client_id and a wrong secret are all invalid_client (401), indistinguishable
// in body and, as far as the hash goes, in timing: an unknown client is checked
// against a dummy hash. Store failures are returned as they are (server_error).
//
// Once the secret is verified, and before it returns the application, it tells the
// token endpoint's TokenHooks (Authenticated) through c, which may refuse the request
// (a rate limit): that error is returned as it is.
//
// A secret that does not match a cached application is checked once more against the
// store, so that a secret rotated on another replica works everywhere at once; the old
// one keeps working on other replicas for at most the cache's ttl. During a
// rotation's grace period the previous secret authenticates too (verifySecret).
func (a *ClientAuthenticator) Authenticate(ctx context.Context, c ClientAuth) (*skygate.Application, *skygate.Account, error) {
	if c.Assertion != "" {
		return a.authenticateAssertion(ctx, c)
	}
	if c.Method == "" && c.Secret == "" && c.ID != "" && c.CertThumbprint != "" {
		return a.authenticateCertificate(ctx, c)
	}
	fail := Errorf(CodeInvalidClient, "client authentication failed")
	if c.ID == "" || c.Secret == "" {
		return nil, nil, fail
	}
	if !plausibleClientID(c.ID) {
		// Not a client_id any application has: never sent to the store (PostgreSQL
		// refuses text with a NUL byte, which would be a 500), checked like an unknown
		// one.
		a.hasher.VerifyUnknown(c.Secret)
		return nil, nil, fail
	}
	app, acct, cached, err := a.apps.lookup(ctx, c.ID, false)
	verified := err == nil && acct != nil && a.verifySecret(c.Secret, app)
	if err == nil && cached && !verified {
		app, acct, err = a.apps.reload(ctx, c.ID, false)
		verified = err == nil && acct != nil && a.verifySecret(c.Secret, app)
	}
	switch {
	case skygate.IsCode(err, skygate.CodeNotFound):
		a.hasher.VerifyUnknown(c.Secret)
		return nil, nil, fail
	case err != nil:
		return nil, nil, err
	case acct == nil:
		return nil, nil, errors.New("oauth: application without account")
	case !verified:
		return nil, nil, fail
	}
	if c.admit != nil {
		if err := c.admit(app.ClientID); err != nil {
			return nil, nil, err
		}
	}
	return app, acct, nil
}

// maxClientIDLength bounds the client_id looked up, in bytes; issued ids have 28.
const maxClientIDLength = 255

// plausibleClientID reports whether id could name an application: valid UTF-8 of at
// most maxClientIDLength bytes without control characters.
func plausibleClientID(id string) bool {
	return len(id) <= maxClientIDLength && utf8.ValidString(id) &&
		!strings.ContainsFunc(id, func(r rune) bool { return r < 0x20 || r == 0x7f })
}

// verifySecret reports whether secret is app's current secret or its previous one
// before the previous one's expiry by the cache's clock, so that every replica stops
// accepting it at that instant whatever it cached. Both hashes are compared whatever
// the first comparison gives.
func (a *ClientAuthenticator) verifySecret(secret string, app *skygate.Application) bool {
	h := a.hasher.Hash(secret)
	current := hmac.Equal(h, app.SecretHash)
	previous := hmac.Equal(h, app.PreviousSecretHash) && app.PreviousSecretValid(a.apps.now())
	return current || previous
}
