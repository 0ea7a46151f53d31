package oauth

import (
	"context"
	"crypto/elliptic"
	"encoding/base64"
	"encoding/json/jsontext"
	jsonv2 "encoding/json/v2"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/skygate/skygate"
)

// MaxTokenSize is the longest token Verify looks at; longer ones are invalid.
const MaxTokenSize = 4096

// leeway absorbs clock skew for exp, iat and nbf, in seconds.
const leeway = 30

// VerifierConfig configures a Verifier.
type VerifierConfig struct {
	// Issuer is the required iss: SKYGATE_PUBLIC_URL. Required.
	Issuer string
	// Audience must be among the token's aud values. Defaults to Issuer.
	Audience string
	// CacheSize bounds the verified-token cache (default 100000 tokens, about 1 KiB
	// each); a negative value disables the cache.
	CacheSize int
	// Clock defaults to time.Now.
	Clock skygate.Clock
	// Revoked, when set, reports whether the token with a jti was revoked (a
	// RevocationList's Revoked); it is asked on every verification, after the cache.
	Revoked func(jti string) bool
}

// Verifier checks access tokens signed by the KeyManager's keys. It is safe for
// concurrent use.
type Verifier struct {
	keys     *KeyManager
	issuer   string
	audience string
	clock    skygate.Clock
	cache    *tokenCache
	revoked  func(jti string) bool
}

// NewVerifier returns a Verifier over keys.
func NewVerifier(keys *KeyManager, cfg VerifierConfig) (*Verifier, error) {
	if cfg.Issuer == "" {
		return nil, errors.New("oauth: issuer is required")
	}
	if cfg.Audience == "" {
		cfg.Audience = cfg.Issuer
	}
	if cfg.CacheSize == 0 {
		cfg.CacheSize = 100_000
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	return &Verifier{
		keys: keys, issuer: cfg.Issuer, audience: cfg.Audience,
		clock: cfg.Clock, cache: newTokenCache(cfg.CacheSize), revoked: cfg.Revoked,
	}, nil
}

// Rejections, each wrapping ErrInvalidToken.
var (
	errMalformed    = fmt.Errorf("%w: malformed", ErrInvalidToken)
	errTooLarge     = fmt.Errorf("%w: too large", ErrInvalidToken)
	errAlg          = fmt.Errorf("%w: alg must be ES256", ErrInvalidToken)
	errTyp          = fmt.Errorf("%w: typ must be at+jwt", ErrInvalidToken)
	errCrit         = fmt.Errorf("%w: unsupported critical header", ErrInvalidToken)
	errUnknownKey   = fmt.Errorf("%w: unknown kid", ErrInvalidToken)
	errSignature    = fmt.Errorf("%w: bad signature", ErrInvalidToken)
	errIssuer       = fmt.Errorf("%w: wrong issuer", ErrInvalidToken)
	errExpired      = fmt.Errorf("%w: expired", ErrInvalidToken)
	errNotYetValid  = fmt.Errorf("%w: not yet valid", ErrInvalidToken)
	errMissingClaim = fmt.Errorf("%w: missing required claim", ErrInvalidToken)
	errNoAccount    = fmt.Errorf("%w: a B2B scope without account_id", ErrInvalidToken)
	errGeneration   = fmt.Errorf("%w: gen out of range", ErrInvalidToken)
	errRevoked      = fmt.Errorf("%w: revoked", ErrInvalidToken)
)

// Verify checks token and returns its claims. It accepts only what Issuer produces:
// JWS compact of at most MaxTokenSize bytes, a header and a payload that are JSON
// objects without duplicate member names (RFC 7515 §4, RFC 7519 §4) in valid UTF-8,
// header alg ES256 (nothing else), typ at+jwt or application/at+jwt (any case), a kid
// of a known key (an unknown kid causes one rate-limited reload of the keys first), a
// valid 64-byte P-256 signature whose s is at most N/2 (Issuer signs so; the high-s
// twin of a valid signature is refused), iss equal to the configured issuer, exp,
// iat, sub, client_id and jti present, account_id present when any scope is a B2B
// scope, gen (when present) an integer from 0 to the largest int, exp not passed and
// iat and nbf not in the future (each within the leeway), and the configured audience
// in aud. Member names match exactly (case-sensitive).
//
// Failures wrap ErrInvalidToken (401), or ErrWrongAudience (403) when only the
// audience is wrong. Successful results are cached until exp; a cached token is
// still rejected once it expires, its key is no longer known, or it is revoked
// (VerifierConfig.Revoked, asked after the cache).
//
// The returned Claims may be shared with other callers and must not be modified.
func (v *Verifier) Verify(ctx context.Context, token string) (*Claims, error) {
	return v.VerifyAt(ctx, token, v.clock())
}

// VerifyAt is Verify at the time at instead of the Verifier's clock: a server passes the
// time its request arrived, which it has read already.
func (v *Verifier) VerifyAt(ctx context.Context, token string, at time.Time) (*Claims, error) {
	if len(token) > MaxTokenSize {
		return nil, errTooLarge
	}
	now := at.Unix()
	if v.cache != nil {
		if e := v.cache.get(token); e != nil {
			if now <= e.deadline && v.keys.set.Load().byKID[e.kid] != nil {
				return v.unlessRevoked(e.claims)
			}
			v.cache.remove(token, e)
		}
	}
	claims, kid, err := v.verify(ctx, token, now)
	if err != nil {
		return nil, err
	}
	if v.cache != nil {
		v.cache.put(token, &cacheEntry{claims: claims, deadline: claims.ExpiresAt.Unix() + leeway, kid: kid}, now)
	}
	return v.unlessRevoked(claims)
}

// unlessRevoked returns claims, or errRevoked when their token was revoked.
func (v *Verifier) unlessRevoked(claims *Claims) (*Claims, error) {
	if v.revoked != nil && v.revoked(claims.ID) {
		return nil, errRevoked
	}
	return claims, nil
}

// halfOrder is N/2 of P-256: the largest s that Verify accepts.
var halfOrder = new(big.Int).Rsh(elliptic.P256().Params().N, 1)

// jwsHeader holds the header parameters Verify looks at.
type jwsHeader struct {
	Alg  string         `json:"alg"`
	Kid  string         `json:"kid"`
	Typ  string         `json:"typ"`
	Crit jsontext.Value `json:"crit"`
}

// verify does the full check without the cache and returns the claims and the kid.
// The header is read here first, with encoding/json/v2, because go-jose keeps the last
// of two members with one name where Verify must refuse the token; go-jose then checks
// the signature.
func (v *Verifier) verify(ctx context.Context, token string, now int64) (*Claims, string, error) {
	if !isCompactJWS(token) {
		return nil, "", errMalformed
	}
	headerSeg, rest, _ := strings.Cut(token, ".")
	key, err := v.headerKey(ctx, headerSeg)
	if err != nil {
		return nil, "", err
	}
	jws, err := jose.ParseSignedCompact(token, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return nil, "", errMalformed
	}
	payload, err := jws.Verify(key.pub) // a 64-byte r||s with 0 < r, s < N
	if err != nil {
		return nil, "", errSignature
	}
	// (r, s) and (r, N−s) are both valid signatures of one message: accepting only the
	// low half makes a token's signature, and so the token, one string.
	sig := jws.Signatures[0].Signature
	if new(big.Int).SetBytes(sig[32:]).Cmp(halfOrder) > 0 {
		return nil, "", errSignature
	}
	// go-jose's base64url decoder ignores the unused bits of a segment's last
	// character, so other strings decode to the same signed token: only the canonical
	// encoding is accepted. (The header was decoded strictly above.)
	enc := base64.RawURLEncoding
	if rest != enc.EncodeToString(payload)+"."+enc.EncodeToString(sig) {
		return nil, "", errMalformed
	}
	var w wireClaims
	if err := jsonv2.Unmarshal(payload, &w); err != nil {
		return nil, "", errMalformed
	}
	if err := v.checkClaims(&w, now); err != nil {
		return nil, "", err
	}
	return w.claims(), key.kid, nil
}

// headerKey checks the protected header and returns its key.
func (v *Verifier) headerKey(ctx context.Context, seg string) (*signingKey, error) {
	raw, err := base64.RawURLEncoding.Strict().DecodeString(seg)
	if err != nil {
		return nil, errMalformed
	}
	var h jwsHeader
	if err := jsonv2.Unmarshal(raw, &h); err != nil {
		return nil, errMalformed
	}
	switch {
	case h.Alg != "ES256": // an allow-list of one: none, HS256, RS256, ES384… all fail
		return nil, errAlg
	case !strings.EqualFold(h.Typ, "at+jwt") && !strings.EqualFold(h.Typ, "application/at+jwt"):
		return nil, errTyp
	case h.Crit != nil: // no extension is understood, so none may be critical
		return nil, errCrit
	case h.Kid == "":
		return nil, errUnknownKey
	}
	key := v.keys.verificationKey(ctx, h.Kid)
	if key == nil {
		return nil, errUnknownKey
	}
	return key, nil
}

// checkClaims applies the claim rules; the audience comes last so that ErrWrongAudience
// means the token is otherwise valid.
func (v *Verifier) checkClaims(w *wireClaims, now int64) error {
	switch {
	case w.Exp == nil || w.Iat == nil || w.Sub == "" || w.ClientID == "" || w.Jti == "":
		return errMissingClaim
	case w.Cnf != nil && w.Cnf.X5tS256 == "":
		// A confirmation without the one method issued here would bind to nothing.
		return errMissingClaim
	case w.Gen < 0:
		return errGeneration
	case w.AccountID == "" && slices.ContainsFunc(w.Scopes, isB2BScope):
		// B2B handlers work in the token's account; without one they would work in
		// the account "" (only employee tokens, with admin scopes, have none).
		return errNoAccount
	case w.Iss != v.issuer:
		return errIssuer
	case now > int64(*w.Exp)+leeway:
		return errExpired
	case int64(*w.Iat) > now+leeway:
		return errNotYetValid
	case w.Nbf != nil && int64(*w.Nbf) > now+leeway:
		return errNotYetValid
	case !slices.Contains(w.Aud, v.audience):
		return ErrWrongAudience
	}
	return nil
}

// isB2BScope reports whether scope is one an application may hold.
func isB2BScope(scope string) bool { return slices.Contains(skygate.B2BScopes, scope) }

// isCompactJWS reports whether token is three non-empty base64url segments. Checking
// the alphabet up front matters because the base64 decoder skips newlines, which would
// let many strings decode to one token.
func isCompactJWS(token string) bool {
	dots, segLen := 0, 0
	for i := 0; i < len(token); i++ {
		c := token[i]
		switch {
		case c == '.':
			if segLen == 0 {
				return false
			}
			dots, segLen = dots+1, 0
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '_':
			segLen++
		default:
			return false
		}
	}
	return dots == 2 && segLen > 0
}
