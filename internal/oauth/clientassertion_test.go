package oauth_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/oauth"
)

// memClientKeys is an in-memory oauth.ClientAssertionStore: JWK Sets by application id
// and used jtis by client.
type memClientKeys struct {
	mu   sync.Mutex
	sets map[string][]byte
	used map[[2]string]time.Time
}

func newMemClientKeys() *memClientKeys {
	return &memClientKeys{sets: map[string][]byte{}, used: map[[2]string]time.Time{}}
}

func (s *memClientKeys) ApplicationJWKS(_ context.Context, _, applicationID string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sets[applicationID], nil
}

func (s *memClientKeys) UseClientAssertion(_ context.Context, clientID, jti string, exp time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := [2]string{clientID, jti}
	if _, ok := s.used[k]; ok {
		return skygate.Errorf(skygate.CodeConflict, "used")
	}
	s.used[k] = exp
	return nil
}

// purge drops the jtis whose expiry is before now, as PurgeClientAssertions does.
func (s *memClientKeys) purge(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, exp := range s.used {
		if exp.Before(now) {
			delete(s.used, k)
		}
	}
}

// assertionFixture is a fixture whose token endpoint accepts client assertions, with
// one client holding a key of each algorithm.
type assertionFixture struct {
	*fixture
	keys     *memClientKeys
	clientID string
	secret   string
	es, rs   crypto.Signer
	ed       ed25519.PrivateKey
}

func setupAssertions(tb testing.TB) *assertionFixture {
	tb.Helper()
	f := &assertionFixture{fixture: setup(tb), keys: newMemClientKeys()}
	auth := oauth.NewClientAuthenticator(f.appCache, f.hasher)
	auth.AcceptAssertions(f.keys, testIssuer, f.clock.Now)
	f.handler = oauth.NewTokenHandler(nil, oauth.NewClientCredentialsGrant(auth, f.issuer))
	f.clientID, f.secret = f.MustApplication(tb, appOptions{})
	var err error
	if f.es, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
		tb.Fatal(err)
	}
	if f.rs, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		tb.Fatal(err)
	}
	if _, f.ed, err = ed25519.GenerateKey(rand.Reader); err != nil {
		tb.Fatal(err)
	}
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
		{Key: f.es.Public(), KeyID: "es", Algorithm: "ES256"},
		{Key: f.rs.Public(), KeyID: "rs", Algorithm: "RS256"},
		{Key: f.ed.Public(), KeyID: "ed", Algorithm: "EdDSA"},
	}}
	raw, err := json.Marshal(set)
	if err != nil {
		tb.Fatal(err)
	}
	stored, err := oauth.ParseClientJWKS(raw)
	if err != nil {
		tb.Fatal(err)
	}
	app, _, err := f.apps.ApplicationByClientID(tb.Context(), f.clientID)
	if err != nil {
		tb.Fatal(err)
	}
	f.keys.sets[app.ID] = stored
	return f
}

// assertion signs claims with key (a private key) as alg under kid ("" sends none).
func assertion(tb testing.TB, key any, alg jose.SignatureAlgorithm, kid string, claims any) string {
	tb.Helper()
	opts := (&jose.SignerOptions{}).WithType("JWT")
	if kid != "" {
		opts = opts.WithHeader("kid", kid)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, opts)
	if err != nil {
		tb.Fatal(err)
	}
	tok, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		tb.Fatal(err)
	}
	return tok
}

// claims returns valid claims of the fixture's client at the fixture's time, with jti.
func (f *assertionFixture) claims(jti string) jwt.Claims {
	now := f.clock.Now()
	return jwt.Claims{
		Issuer: f.clientID, Subject: f.clientID, Audience: jwt.Audience{testIssuer + oauth.TokenPath},
		Expiry: jwt.NewNumericDate(now.Add(time.Minute)), IssuedAt: jwt.NewNumericDate(now), ID: jti,
	}
}

func (f *assertionFixture) postAssertion(tb testing.TB, tok string, extra ...string) *tokenResult {
	tb.Helper()
	body := form(append([]string{"grant_type", "client_credentials",
		"client_assertion_type", oauth.ClientAssertionType, "client_assertion", tok}, extra...)...)
	return decodeResult(tb, f.post(tb, tokenCall{contentType: formType, body: body}))
}

// tokenResult is a decoded token endpoint response.
type tokenResult struct {
	status      int
	accessToken string
	err, desc   string
}

func decodeResult(tb testing.TB, w interface {
	Result() *http.Response
}) *tokenResult {
	tb.Helper()
	resp := w.Result()
	var body struct {
		AccessToken string `json:"access_token"`
		Error       string `json:"error"`
		Desc        string `json:"error_description"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		tb.Fatal(err)
	}
	return &tokenResult{status: resp.StatusCode, accessToken: body.AccessToken, err: body.Error, desc: body.Desc}
}

func TestClientAssertionEachAlgorithm(t *testing.T) {
	t.Parallel()
	f := setupAssertions(t)
	for _, tc := range []struct {
		kid string
		alg jose.SignatureAlgorithm
		key any
	}{
		{"es", jose.ES256, f.es}, {"rs", jose.RS256, f.rs}, {"ed", jose.EdDSA, f.ed},
	} {
		t.Run(string(tc.alg), func(t *testing.T) {
			res := f.postAssertion(t, assertion(t, tc.key, tc.alg, tc.kid, f.claims("jti-"+tc.kid)))
			if res.status != http.StatusOK || res.accessToken == "" {
				t.Fatalf("status %d, error %s: %s", res.status, res.err, res.desc)
			}
			c := MustVerify(t, f.verifier, res.accessToken)
			if c.ClientID != f.clientID {
				t.Errorf("client_id = %q, want %q", c.ClientID, f.clientID)
			}
		})
	}
	// The issuer as aud, and the client_id parameter beside the assertion.
	c := f.claims("issuer-aud")
	c.Audience = jwt.Audience{"https://other.example", testIssuer}
	if res := f.postAssertion(t, assertion(t, f.es, jose.ES256, "es", c), "client_id", f.clientID); res.status != http.StatusOK {
		t.Fatalf("issuer as aud: status %d, %s: %s", res.status, res.err, res.desc)
	}
}

func TestClientAssertionRefused(t *testing.T) {
	t.Parallel()
	f := setupAssertions(t)
	other, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := f.clock.Now()
	valid := func(jti string, change func(*jwt.Claims)) jwt.Claims {
		c := f.claims(jti)
		change(&c)
		return c
	}
	for _, tc := range []struct {
		name  string
		tok   string
		extra []string
		want  string // in error_description
	}{
		{"wrong aud", assertion(t, f.es, jose.ES256, "es", valid("a1", func(c *jwt.Claims) { c.Audience = jwt.Audience{"https://evil.example/token"} })), nil, "aud must be"},
		{"no aud", assertion(t, f.es, jose.ES256, "es", valid("a2", func(c *jwt.Claims) { c.Audience = nil })), nil, "aud must be"},
		{"expired", assertion(t, f.es, jose.ES256, "es", valid("a3", func(c *jwt.Claims) {
			c.Expiry, c.IssuedAt = jwt.NewNumericDate(now.Add(-time.Minute)), jwt.NewNumericDate(now.Add(-2*time.Minute))
		})), nil, "expired"},
		{"exp too far", assertion(t, f.es, jose.ES256, "es", valid("a4", func(c *jwt.Claims) { c.Expiry = jwt.NewNumericDate(now.Add(10 * time.Minute)) })), nil, "5 minutes"},
		{"no exp", assertion(t, f.es, jose.ES256, "es", valid("a5", func(c *jwt.Claims) { c.Expiry = nil })), nil, "exp is required"},
		{"no jti", assertion(t, f.es, jose.ES256, "es", valid("", func(*jwt.Claims) {})), nil, "jti is required"},
		{"NUL in jti", assertion(t, f.es, jose.ES256, "es", valid("a\x00b", func(*jwt.Claims) {})), nil, "control characters"},
		{"nbf ahead", assertion(t, f.es, jose.ES256, "es", valid("a6", func(c *jwt.Claims) { c.NotBefore = jwt.NewNumericDate(now.Add(2 * time.Minute)) })), nil, "nbf"},
		{"iat ahead", assertion(t, f.es, jose.ES256, "es", valid("a7", func(c *jwt.Claims) { c.IssuedAt = jwt.NewNumericDate(now.Add(2 * time.Minute)) })), nil, "iat"},
		{"iss differs from sub", assertion(t, f.es, jose.ES256, "es", valid("a8", func(c *jwt.Claims) { c.Subject = "someone-else" })), nil, "iss and sub"},
		{"unknown client", assertion(t, f.es, jose.ES256, "es", valid("a9", func(c *jwt.Claims) { c.Issuer, c.Subject = "nobody", "nobody" })), nil, noKey},
		{"client_id differs", assertion(t, f.es, jose.ES256, "es", f.claims("a10")), []string{"client_id", "other-client"}, "client_id differs"},
		{"wrong key", assertion(t, other, jose.ES256, "es", f.claims("a11")), nil, noKey},
		{"unknown kid", assertion(t, f.es, jose.ES256, "nope", f.claims("a12")), nil, noKey},
		{"no kid with several keys", assertion(t, f.es, jose.ES256, "", f.claims("a13")), nil, noKey},
		{"alg of another key", assertion(t, f.es, jose.ES256, "ed", f.claims("a14")), nil, noKey},
		{"HS256", assertion(t, []byte(strings.Repeat("k", 32)), jose.HS256, "es", f.claims("a15")), nil, "ES256, RS256 or EdDSA"},
		{"alg none", unsignedAssertion(t, f.claims("a16")), nil, "ES256, RS256 or EdDSA"},
		{"garbage", "not.a.jwt", nil, "ES256, RS256 or EdDSA"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := f.postAssertion(t, tc.tok, tc.extra...)
			if res.status != http.StatusUnauthorized || res.err != oauth.CodeInvalidClient {
				t.Fatalf("status %d error %q (%s), want 401 invalid_client", res.status, res.err, res.desc)
			}
			if !strings.Contains(res.desc, tc.want) {
				t.Errorf("error_description %q does not say %q", res.desc, tc.want)
			}
		})
	}
}

// noKey is the whole error_description of every refusal before the signature verifies
// that depends on what is registered: an unknown client, one without a JWK Set, a kid
// or alg that fits no key, a wrong signature. It must not tell them apart.
const noKey = "client assertion refused: no key registered for the client that iss names verifies it (check iss, kid and alg)"

// unsignedAssertion is claims under alg "none" (RFC 7519 §6).
func unsignedAssertion(tb testing.TB, claims jwt.Claims) string {
	tb.Helper()
	return b64(map[string]string{"alg": "none", "kid": "es"}) + "." + b64(claims) + "."
}

func TestClientAssertionReplay(t *testing.T) {
	t.Parallel()
	f := setupAssertions(t)
	tok := assertion(t, f.ed, jose.EdDSA, "ed", f.claims("once"))
	if res := f.postAssertion(t, tok); res.status != http.StatusOK {
		t.Fatalf("first use: status %d, %s: %s", res.status, res.err, res.desc)
	}
	res := f.postAssertion(t, tok)
	if res.status != http.StatusUnauthorized || !strings.Contains(res.desc, "jti was used") {
		t.Fatalf("replay: status %d, %s: %s; want 401 naming the jti", res.status, res.err, res.desc)
	}
}

// TestClientAssertionReplayAfterPurge replays an assertion accepted within the leeway
// after its exp, once the store has purged what expired: the jti must still be held.
func TestClientAssertionReplayAfterPurge(t *testing.T) {
	t.Parallel()
	f := setupAssertions(t)
	c := f.claims("late")
	c.Expiry = jwt.NewNumericDate(f.clock.Now().Add(-oauth.AssertionLeeway / 2))
	tok := assertion(t, f.es, jose.ES256, "es", c)
	if res := f.postAssertion(t, tok); res.status != http.StatusOK {
		t.Fatalf("first use within the leeway: status %d, %s: %s", res.status, res.err, res.desc)
	}
	f.keys.purge(f.clock.Now())
	res := f.postAssertion(t, tok)
	if res.status != http.StatusUnauthorized || !strings.Contains(res.desc, "jti was used") {
		t.Fatalf("replay after a purge: status %d, %s: %s; want 401 naming the jti", res.status, res.err, res.desc)
	}
}

func TestClientAssertionRequestShape(t *testing.T) {
	t.Parallel()
	f := setupAssertions(t)
	tok := assertion(t, f.es, jose.ES256, "es", f.claims("shape"))
	for _, tc := range []struct {
		name string
		call tokenCall
		want int
		code string
	}{
		{"secret and assertion", tokenCall{contentType: formType, body: form("grant_type", "client_credentials",
			"client_secret", f.secret, "client_id", f.clientID, "client_assertion_type", oauth.ClientAssertionType, "client_assertion", tok)},
			http.StatusBadRequest, oauth.CodeInvalidRequest},
		{"basic and assertion", tokenCall{contentType: formType, basic: []string{f.clientID, f.secret}, body: form("grant_type", "client_credentials",
			"client_assertion_type", oauth.ClientAssertionType, "client_assertion", tok)},
			http.StatusBadRequest, oauth.CodeInvalidRequest},
		{"assertion without type", tokenCall{contentType: formType, body: form("grant_type", "client_credentials", "client_assertion", tok)},
			http.StatusBadRequest, oauth.CodeInvalidRequest},
		{"type without assertion", tokenCall{contentType: formType, body: form("grant_type", "client_credentials", "client_assertion_type", oauth.ClientAssertionType)},
			http.StatusBadRequest, oauth.CodeInvalidRequest},
		{"other assertion type", tokenCall{contentType: formType, body: form("grant_type", "client_credentials",
			"client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:saml2-bearer", "client_assertion", tok)},
			http.StatusUnauthorized, oauth.CodeInvalidClient},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := decodeResult(t, f.post(t, tc.call))
			if res.status != tc.want || res.err != tc.code {
				t.Fatalf("status %d error %q (%s), want %d %s", res.status, res.err, res.desc, tc.want, tc.code)
			}
		})
	}
	// The assertion was never checked, so it still works, in a JSON body too.
	w := f.post(t, tokenCall{contentType: jsonType, body: `{"grant_type":"client_credentials","client_assertion_type":"` +
		oauth.ClientAssertionType + `","client_assertion":"` + tok + `"}`})
	if res := decodeResult(t, w); res.status != http.StatusOK {
		t.Fatalf("JSON body: status %d, %s: %s", res.status, res.err, res.desc)
	}
}

// A client without a JWK Set, and an endpoint that does not accept assertions, refuse
// them.
func TestClientAssertionNotRegistered(t *testing.T) {
	t.Parallel()
	f := setupAssertions(t)
	id, _ := f.MustApplication(t, appOptions{})
	c := f.claims("no-set")
	c.Issuer, c.Subject = id, id
	if res := f.postAssertion(t, assertion(t, f.es, jose.ES256, "es", c)); res.status != http.StatusUnauthorized ||
		res.desc != noKey {
		t.Fatalf("status %d, %s: %s; want 401 %q, as for an unknown client", res.status, res.err, res.desc, noKey)
	}
	plain := setup(t)
	w := plain.post(t, tokenCall{contentType: formType, body: form("grant_type", "client_credentials",
		"client_assertion_type", oauth.ClientAssertionType, "client_assertion", assertion(t, f.es, jose.ES256, "es", f.claims("x")))})
	if res := decodeResult(t, w); res.status != http.StatusUnauthorized {
		t.Fatalf("without AcceptAssertions: status %d, want 401", res.status)
	}
}

// TestClientAssertionHooks: a verified assertion is admitted as its application (and
// may be refused, before its jti is used); a refused one is reported with the iss it
// claims.
func TestClientAssertionHooks(t *testing.T) {
	t.Parallel()
	f := setupAssertions(t)
	h := &recordingHooks{}
	f.handler.Hooks = h
	if res := f.postAssertion(t, assertion(t, f.es, jose.ES256, "es", f.claims("hooked"))); res.status != http.StatusOK {
		t.Fatalf("status %d: %s", res.status, res.desc)
	}
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if res := f.postAssertion(t, assertion(t, other, jose.ES256, "es", f.claims("forged"))); res.status != http.StatusUnauthorized {
		t.Fatalf("forged: status %d", res.status)
	}
	if !equalStrings(h.authenticated, []string{f.clientID}) || !equalStrings(h.failed, []string{f.clientID}) {
		t.Errorf("authenticated %q, failed %q; want the client once each", h.authenticated, h.failed)
	}

	// A replayed assertion is a failed authentication, never the client's: anyone who
	// saw it must not use up the client's allowance with it.
	h = &recordingHooks{}
	f.handler.Hooks = h
	tok := assertion(t, f.es, jose.ES256, "es", f.claims("replayed"))
	if res := f.postAssertion(t, tok); res.status != http.StatusOK {
		t.Fatalf("first use: status %d: %s", res.status, res.desc)
	}
	for range 3 {
		if res := f.postAssertion(t, tok); res.status != http.StatusUnauthorized {
			t.Fatalf("replay: status %d: %s", res.status, res.desc)
		}
	}
	if !equalStrings(h.authenticated, []string{f.clientID}) || len(h.failed) != 3 {
		t.Errorf("authenticated %q, failed %q; want the first use authenticated and each replay failed", h.authenticated, h.failed)
	}

	// An assertion the hooks refuse is spent: the client signs a new one.
	tok = assertion(t, f.es, jose.ES256, "es", f.claims("refused-first"))
	f.handler.Hooks = &recordingHooks{refuse: errors.New("over the limit")}
	if w := f.post(t, tokenCall{contentType: formType, body: form("grant_type", "client_credentials",
		"client_assertion_type", oauth.ClientAssertionType, "client_assertion", tok)}); w.Code != http.StatusTooManyRequests {
		t.Fatalf("refused: status %d", w.Code)
	}
	f.handler.Hooks = nil
	if res := f.postAssertion(t, tok); res.status != http.StatusUnauthorized || !strings.Contains(res.desc, "jti was used") {
		t.Fatalf("after the refusal: status %d: %s; want 401 naming the jti", res.status, res.desc)
	}
	if res := f.postAssertion(t, assertion(t, f.es, jose.ES256, "es", f.claims("refused-then-new"))); res.status != http.StatusOK {
		t.Fatalf("a new assertion after the refusal: status %d: %s", res.status, res.desc)
	}
}
