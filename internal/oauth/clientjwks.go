package oauth

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/go-jose/go-jose/v4"
)

// Limits of an application's JWK Set (private_key_jwt).
const (
	// MaxClientKeys bounds the keys of one set: enough for a rotation with overlap.
	MaxClientKeys = 10
	// MaxClientJWKSBytes bounds the set's JSON; ten 4096-bit RSA keys fit.
	MaxClientJWKSBytes = 16 << 10
	// minRSABits is the smallest RSA modulus accepted (NIST SP 800-131A).
	minRSABits = 2048
)

// ClientAssertionAlgs are the JWS algorithms of client assertions, which the keys of
// a client's JWK Set may declare: ES256 on P-256, RS256 on RSA of at least 2048 bits,
// EdDSA on Ed25519. discovery advertises them.
var ClientAssertionAlgs = []jose.SignatureAlgorithm{jose.ES256, jose.RS256, jose.EdDSA}

// privateMembers are the JWK members of private or symmetric keys (RFC 7518 §6.2.2,
// §6.3.2, §6.4, RFC 8037 §2): a set that carries one is refused rather than stripped,
// since whoever sent it has leaked the key.
var privateMembers = []string{"d", "p", "q", "dp", "dq", "qi", "oth", "k"}

// ParseClientJWKS checks raw, an application's JWK Set as sent ({"keys": [...]}), and
// returns its canonical form to store: public keys only, each with a distinct kid and
// the alg it signs with (inferred from the key when absent), at most MaxClientKeys
// keys and MaxClientJWKSBytes bytes. The error's text says what is wrong, for the
// caller to show; it never repeats key material.
func ParseClientJWKS(raw []byte) ([]byte, error) {
	if len(raw) > MaxClientJWKSBytes {
		return nil, fmt.Errorf("jwks exceeds %d bytes", MaxClientJWKSBytes)
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(raw, &set); err != nil || set.Keys == nil {
		return nil, fmt.Errorf(`jwks must be an object {"keys": [...]}`)
	}
	if len(set.Keys) > MaxClientKeys {
		return nil, fmt.Errorf("jwks has %d keys; at most %d are allowed", len(set.Keys), MaxClientKeys)
	}
	out := jose.JSONWebKeySet{Keys: make([]jose.JSONWebKey, 0, len(set.Keys))}
	for i, rawKey := range set.Keys {
		k, err := parseClientKey(rawKey)
		if err != nil {
			return nil, fmt.Errorf("jwks key %d: %w", i, err)
		}
		if slices.ContainsFunc(out.Keys, func(o jose.JSONWebKey) bool { return o.KeyID == k.KeyID }) {
			return nil, fmt.Errorf("jwks key %d: kid %q is used twice", i, k.KeyID)
		}
		out.Keys = append(out.Keys, *k)
	}
	return json.Marshal(out)
}

// parseClientKey checks one key of a client's JWK Set (see ParseClientJWKS).
func parseClientKey(raw json.RawMessage) (*jose.JSONWebKey, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return nil, fmt.Errorf("not a JSON object")
	}
	for _, m := range privateMembers {
		if _, ok := members[m]; ok {
			return nil, fmt.Errorf("member %q belongs to a private or symmetric key; register public keys only", m)
		}
	}
	var k jose.JSONWebKey
	if err := k.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("not a valid JWK: %w", err)
	}
	if k.KeyID == "" {
		return nil, fmt.Errorf("kid is required")
	}
	if k.Use != "" && k.Use != "sig" {
		return nil, fmt.Errorf(`use must be "sig"`)
	}
	alg, err := keyAlg(k.Key)
	if err != nil {
		return nil, err
	}
	if k.Algorithm == "" {
		k.Algorithm = string(alg)
	} else if k.Algorithm != string(alg) {
		return nil, fmt.Errorf("alg %q does not fit the key; want %s", k.Algorithm, alg)
	}
	// The stored form keeps what verification needs: x5c and its kin are dropped.
	return &jose.JSONWebKey{Key: k.Key, KeyID: k.KeyID, Algorithm: k.Algorithm, Use: k.Use}, nil
}

// keyAlg returns the one algorithm key may sign client assertions with, or why it
// cannot sign any.
func keyAlg(key any) (jose.SignatureAlgorithm, error) {
	switch key := key.(type) {
	case *ecdsa.PublicKey:
		if key.Curve != elliptic.P256() {
			return "", fmt.Errorf("EC keys must be on P-256 (ES256)")
		}
		return jose.ES256, nil
	case *rsa.PublicKey:
		if key.N.BitLen() < minRSABits {
			return "", fmt.Errorf("RSA keys must have at least %d bits", minRSABits)
		}
		return jose.RS256, nil
	case ed25519.PublicKey:
		return jose.EdDSA, nil
	default:
		return "", fmt.Errorf("kty must be EC (P-256), RSA or OKP (Ed25519) with a public key")
	}
}
