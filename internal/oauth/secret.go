package oauth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"

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
