package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/skygate/skygate"
)

// private_key_jwt client authentication (RFC 7523 §2.2, RFC 7521 §4.2).
const (
	// ClientAssertionType is the one client_assertion_type accepted.
	ClientAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
	// AuthMethodPrivateKeyJWT is the token endpoint auth method of client assertions.
	AuthMethodPrivateKeyJWT = "private_key_jwt"

	// MaxAssertionLifetime is how far ahead of now a client assertion's exp may be:
	// its jti is kept until then.
	MaxAssertionLifetime = 5 * time.Minute
	// AssertionLeeway is the clock skew allowed between the client and the service on
	// exp, nbf and iat.
	AssertionLeeway = 30 * time.Second
	// maxJTILength bounds the jti kept, in bytes.
	maxJTILength = 255
)

// ClientAssertionStore is what client assertions need of the store (the methods of
// skygate.ClientKeyStore of those names).
type ClientAssertionStore interface {
	ApplicationJWKS(ctx context.Context, accountID, applicationID string) ([]byte, error)
	UseClientAssertion(ctx context.Context, clientID, jti string, expiresAt time.Time) error
}

// clientAssertions checks client assertions for a ClientAuthenticator.
type clientAssertions struct {
	store     ClientAssertionStore
	audiences jwt.Audience
	now       skygate.Clock
}

// AcceptAssertions makes a accept private_key_jwt: client assertions signed with a
// key of the application's JWK Set (store), whose aud names the token endpoint or the
// issuer of publicURL, checked at the time now tells (time.Now when nil). Call it
// before the authenticator serves requests.
func (a *ClientAuthenticator) AcceptAssertions(store ClientAssertionStore, publicURL string, now skygate.Clock) {
	if now == nil {
		now = time.Now
	}
	m := NewMetadata(publicURL)
	a.assertions = &clientAssertions{store: store, audiences: jwt.Audience{m.TokenEndpoint, m.Issuer}, now: now}
}

// assertionFailure is the invalid_client of a client assertion that is refused, with
// why in its public description, never key material. Until the signature verifies,
// the sender may be anyone: every failure that depends on what is registered (no such
// client, no JWK Set, no key for the header, a wrong signature) is then errNoKey, so
// that the answer does not tell whether a client exists or which keys it has. Reasons
// given after the signature verifies are for the client, who holds the key.
func assertionFailure(why string) *Error {
	return Errorf(CodeInvalidClient, "client assertion refused: %s", why)
}

// errNoKey is the one reason of a refusal before the signature verifies that depends
// on what is registered.
const errNoKey = "no key registered for the client that iss names verifies it (check iss, kid and alg)"

// authenticateAssertion is Authenticate for a request carrying a client assertion
// (c.Assertion): the JWS must use one of ClientAssertionAlgs, name its key by kid
// (optional when the set has one key) with that key's alg, and verify; iss and sub
// must both be the client_id (and equal the client_id parameter when sent), aud the
// token endpoint or the issuer, exp present and at most MaxAssertionLifetime ahead,
// nbf and iat not in the future, jti present. The jti is then recorded until exp plus
// AssertionLeeway, the last instant the assertion passes these checks: one used before
// is refused, on whichever replica it was used. Only then is the client's allowance
// asked (c.admit), so that a replay is counted against its sender's source.
func (a *ClientAuthenticator) authenticateAssertion(ctx context.Context, c ClientAuth) (*skygate.Application, *skygate.Account, error) {
	v := a.assertions
	if v == nil {
		return nil, nil, Errorf(CodeInvalidClient, "client assertions are not accepted")
	}
	tok, err := jwt.ParseSigned(c.Assertion, ClientAssertionAlgs)
	if err != nil {
		return nil, nil, assertionFailure("not a JWS signed with ES256, RS256 or EdDSA")
	}
	var unverified jwt.Claims
	if err := tok.UnsafeClaimsWithoutVerification(&unverified); err != nil {
		return nil, nil, assertionFailure("malformed claims")
	}
	id := unverified.Issuer
	switch {
	case id == "" || unverified.Subject != id:
		return nil, nil, assertionFailure("iss and sub must both be the client_id")
	case c.ID != "" && c.ID != id:
		return nil, nil, Errorf(CodeInvalidClient, "client assertion refused: client_id differs from the assertion's iss")
	case !plausibleClientID(id):
		return nil, nil, assertionFailure(errNoKey)
	}
	app, acct, _, err := a.apps.lookup(ctx, id, false)
	switch {
	case skygate.IsCode(err, skygate.CodeNotFound):
		return nil, nil, assertionFailure(errNoKey)
	case err != nil:
		return nil, nil, err
	case acct == nil:
		return nil, nil, errors.New("oauth: application without account")
	}
	rawSet, err := v.store.ApplicationJWKS(ctx, acct.ID, app.ID)
	switch {
	case skygate.IsCode(err, skygate.CodeNotFound):
		// Deleted since the cache read it.
		return nil, nil, assertionFailure(errNoKey)
	case err != nil:
		return nil, nil, err
	case rawSet == nil:
		return nil, nil, assertionFailure(errNoKey)
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(rawSet, &set); err != nil {
		return nil, nil, err // validated when stored: a corrupt row
	}
	key := assertionKey(set, tok.Headers[0])
	if key == nil {
		return nil, nil, assertionFailure(errNoKey)
	}
	var claims jwt.Claims
	if err := tok.Claims(key.Key, &claims); err != nil {
		return nil, nil, assertionFailure(errNoKey)
	}
	now := v.now()
	if why := checkAssertionClaims(&claims, id, v.audiences, now); why != "" {
		return nil, nil, assertionFailure(why)
	}
	// The jti is kept until the assertion stops being accepted, exp plus the leeway: a
	// record kept only until exp could be purged while a replay still passes the checks.
	err = v.store.UseClientAssertion(ctx, app.ClientID, claims.ID, claims.Expiry.Time().Add(AssertionLeeway))
	switch {
	case skygate.IsCode(err, skygate.CodeConflict):
		return nil, nil, assertionFailure("its jti was used already")
	case err != nil:
		return nil, nil, err
	}
	// Only a first use is the client's: admitted before the jti was spent, a replayed
	// assertion (one seen in transit or in a log) would be refunded to its sender's
	// source and charged to the client, whose allowance anyone holding it could then
	// use up. An assertion the hooks refuse is spent: the client signs a new one.
	if c.admit != nil {
		if err := c.admit(app.ClientID); err != nil {
			return nil, nil, err
		}
	}
	return app, acct, nil
}

// claimedIssuer is the iss that assertion claims, unverified, or "" when it cannot be
// read: what a failed authentication's log names.
func claimedIssuer(assertion string) string {
	tok, err := jwt.ParseSigned(assertion, ClientAssertionAlgs)
	if err != nil {
		return ""
	}
	var c jwt.Claims
	if tok.UnsafeClaimsWithoutVerification(&c) != nil {
		return ""
	}
	return c.Issuer
}

// assertionKey returns the key of set that header names (by kid, or the only one when
// there is no kid) if header's alg is that key's, else nil.
func assertionKey(set jose.JSONWebKeySet, header jose.Header) *jose.JSONWebKey {
	var key *jose.JSONWebKey
	switch {
	case header.KeyID != "":
		keys := set.Key(header.KeyID)
		if len(keys) == 0 {
			return nil
		}
		key = &keys[0]
	case len(set.Keys) == 1:
		key = &set.Keys[0]
	default:
		return nil
	}
	if header.Algorithm != key.Algorithm {
		return nil
	}
	return key
}

// checkAssertionClaims returns why verified claims of client id are refused at now,
// or "".
func checkAssertionClaims(c *jwt.Claims, id string, audiences jwt.Audience, now time.Time) string {
	switch {
	case c.Expiry == nil:
		return "exp is required"
	case c.ID == "":
		return "jti is required"
	case len(c.ID) > maxJTILength:
		return "jti is too long"
	case strings.ContainsFunc(c.ID, unicode.IsControl):
		// Stored as text: PostgreSQL refuses a NUL byte, which would be a 500.
		return "jti must not contain control characters"
	case c.Expiry.Time().After(now.Add(MaxAssertionLifetime + AssertionLeeway)):
		return "exp is more than 5 minutes ahead"
	case c.IssuedAt != nil && c.IssuedAt.Time().After(now.Add(AssertionLeeway)):
		return "iat is in the future"
	case !slices.ContainsFunc(c.Audience, func(aud string) bool { return slices.Contains(audiences, aud) }):
		return "aud must be the token endpoint or the issuer: " + strings.Join(audiences, " or ")
	}
	err := c.ValidateWithLeeway(jwt.Expected{Issuer: id, Subject: id, Time: now}, AssertionLeeway)
	switch {
	case err == nil:
		return ""
	case errors.Is(err, jwt.ErrExpired):
		return "it has expired"
	case errors.Is(err, jwt.ErrNotValidYet):
		return "nbf is in the future"
	case errors.Is(err, jwt.ErrIssuedInTheFuture):
		return "iat is in the future"
	default:
		return "invalid claims"
	}
}
