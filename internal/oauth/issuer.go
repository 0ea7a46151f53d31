package oauth

import (
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/skygate/skygate"
)

// IssuerConfig configures an Issuer.
type IssuerConfig struct {
	// Issuer is the iss claim: SKYGATE_PUBLIC_URL. Required.
	Issuer string
	// Audience is the aud claim: the API, SKYGATE_PUBLIC_URL too. Defaults to Issuer.
	Audience string
	// TTL is the token lifetime (default 1h). It must not exceed the KeyManager's
	// MaxTokenTTL.
	TTL time.Duration
	// Clock defaults to time.Now.
	Clock skygate.Clock
}

// Issuer signs access tokens with the KeyManager's current key. It is safe for
// concurrent use. B2B and employee tokens with different lifetimes use two Issuers
// over one KeyManager.
type Issuer struct {
	keys     *KeyManager
	issuer   string
	audience audience
	ttl      time.Duration
	clock    skygate.Clock
}

// NewIssuer returns an Issuer signing with keys.
func NewIssuer(keys *KeyManager, cfg IssuerConfig) (*Issuer, error) {
	if cfg.Issuer == "" {
		return nil, errors.New("oauth: issuer is required")
	}
	if cfg.Audience == "" {
		cfg.Audience = cfg.Issuer
	}
	if cfg.TTL <= 0 {
		cfg.TTL = time.Hour
	}
	if cfg.TTL < time.Second {
		return nil, fmt.Errorf("oauth: token TTL %v is below one second", cfg.TTL)
	}
	if cfg.TTL > keys.maxTTL {
		// The key manager would unpublish keys while tokens they signed still live.
		return nil, fmt.Errorf("oauth: token TTL %v exceeds the key manager's MaxTokenTTL %v", cfg.TTL, keys.maxTTL)
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	return &Issuer{keys: keys, issuer: cfg.Issuer, audience: audience{cfg.Audience},
		ttl: cfg.TTL, clock: cfg.Clock}, nil
}

// TTL returns the lifetime of the tokens it issues.
func (i *Issuer) TTL() time.Duration { return i.ttl }

// Issue returns a signed token for claims and its expiry. The caller sets Subject,
// ClientID, AccountID (B2B only), Scopes, Roles (employees only), CertThumbprint
// (certificate-bound tokens only) and Generation (B2B only); Issue sets Issuer,
// Audience, IssuedAt (now), ExpiresAt (now + TTL, whole seconds) and a random ID,
// ignoring any values the caller put there. The header is
// {"alg":"ES256","kid":…,"typ":"at+jwt"}; the signature is r||s, 64 bytes (RFC 7518
// §3.4), with s in the lower half of the group order. It fails with ErrNoSigningKey
// when no key is active.
func (i *Issuer) Issue(claims Claims) (string, time.Time, error) {
	now := i.clock()
	key := i.keys.set.Load().signer(now)
	if key == nil {
		return "", time.Time{}, ErrNoSigningKey
	}
	iat := now.Unix()
	exp := time.Unix(iat+int64(i.ttl/time.Second), 0)
	claims.Issuer = i.issuer
	claims.Audience = i.audience
	claims.IssuedAt = time.Unix(iat, 0)
	claims.ExpiresAt = exp
	claims.ID = newJTI()
	payload := claims.appendJSON(make([]byte, 0, 512))

	enc := base64.RawURLEncoding
	buf := make([]byte, 0, len(key.header)+enc.EncodedLen(len(payload))+1+86)
	buf = append(buf, key.header...)
	buf = enc.AppendEncode(buf, payload)
	digest := sha256.Sum256(buf)
	r, s, err := ecdsa.Sign(rand.Reader, key.priv, digest[:])
	if err != nil {
		return "", time.Time{}, fmt.Errorf("oauth: sign: %w", err)
	}
	if s.Cmp(halfOrder) > 0 { // the low-s form, the only one Verify accepts
		s.Sub(key.priv.Params().N, s)
	}
	var sig [64]byte
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	buf = append(buf, '.')
	buf = enc.AppendEncode(buf, sig[:])
	return string(buf), exp, nil
}

// newJTI returns 16 random bytes in base64url.
func newJTI() string {
	var b [16]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}
