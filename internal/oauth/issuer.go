package oauth

import (
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
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
// (certificate-bound tokens only), Generation (B2B only) and, in Audience, the extra
// resource audiences of the client (B2B only, usually none); Issue sets Issuer,
// IssuedAt (now), ExpiresAt (now + TTL, whole seconds) and a random ID, ignoring any
// values the caller put there, and Audience to the Issuer's audience followed by the
// caller's extra ones without repeats: aud is then one string, or an array when there
// are extras (RFC 9068 §3). Every token thus names the service's own audience, which
// the Verifier requires. The token is JWS compact with the header
// {"alg":"ES256","kid":…,"typ":"at+jwt"}; the signature is r||s, 64 bytes (RFC 7518
// §3.4), with s in the lower half of the group order. It fails with ErrNoSigningKey
// when no key is active.
func (i *Issuer) Issue(claims Claims) (string, time.Time, error) {
	now := i.clock()
	key := i.keys.set.Load().signer(now)
	if key == nil {
		return "", time.Time{}, ErrNoSigningKey
	}
	iat := time.Unix(now.Unix(), 0)
	exp := iat.Add(i.ttl.Truncate(time.Second))
	claims.Issuer = i.issuer
	claims.Audience = i.audienceWith(claims.Audience)
	claims.IssuedAt = iat
	claims.ExpiresAt = exp
	claims.ID = newJTI()
	payload, err := json.Marshal(claims.wire())
	if err != nil {
		return "", time.Time{}, fmt.Errorf("oauth: encode claims: %w", err)
	}
	jws, err := key.signer.Sign(payload)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("oauth: sign: %w", err)
	}
	lowS(jws.Signatures[0].Signature)
	token, err := jws.CompactSerialize()
	if err != nil {
		return "", time.Time{}, fmt.Errorf("oauth: sign: %w", err)
	}
	return token, exp, nil
}

// audienceWith returns the Issuer's audience followed by extra without repeats.
func (i *Issuer) audienceWith(extra []string) audience {
	if len(extra) == 0 {
		return i.audience
	}
	aud := slices.Clone(i.audience)
	for _, a := range extra {
		if !slices.Contains(aud, a) {
			aud = append(aud, a)
		}
	}
	return aud
}

// lowS turns an ES256 signature r||s whose s is above N/2 into its twin r||N−s. Both
// verify; Verify accepts only the low one, so that a token has one signature.
func lowS(sig []byte) {
	s := new(big.Int).SetBytes(sig[32:])
	if s.Cmp(halfOrder) > 0 {
		s.Sub(elliptic.P256().Params().N, s).FillBytes(sig[32:])
	}
}

// newJTI returns 16 random bytes in base64url.
func newJTI() string {
	var b [16]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}
