package oauth_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/oauth"
	"github.com/skygate/skygate/internal/seal"
)

const (
	testIssuer = "https://api.skygate.test"
	testTTL    = time.Hour
	testAppTTL = time.Second
)

// fixture is one service instance: a key manager over an in-memory store, an issuer,
// a verifier and the token endpoint.
type fixture struct {
	clock    *fakeClock
	keyStore *memKeyStore
	apps     *memAppStore
	// appCache is the token endpoint's application cache over apps (ttl testAppTTL).
	appCache *oauth.ApplicationCache
	box      *seal.Box
	hasher   *oauth.SecretHasher
	keys     *oauth.KeyManager
	issuer   *oauth.Issuer
	verifier *oauth.Verifier
	handler  *oauth.TokenHandler
}

// setup returns a fixture with one active signing key.
func setup(tb testing.TB) *fixture {
	tb.Helper()
	f := &fixture{clock: newFakeClock(), keyStore: newMemKeyStore(), apps: newMemAppStore(), box: MustBox(tb)}
	f.hasher = oauth.NewSecretHasher(f.box)
	f.keys = f.replica(tb)
	MustEnsureKey(tb, f.keys)
	f.issuer = MustIssuer(tb, f.keys, oauth.IssuerConfig{Issuer: testIssuer, TTL: testTTL, Clock: f.clock.Now})
	f.verifier = MustVerifier(tb, f.keys, oauth.VerifierConfig{Issuer: testIssuer, Clock: f.clock.Now})
	f.appCache = oauth.NewApplicationCache(f.apps, testAppTTL, f.clock.Now)
	f.handler = oauth.NewTokenHandler(nil, oauth.NewClientCredentialsGrant(
		oauth.NewClientAuthenticator(f.appCache, f.hasher), f.issuer))
	return f
}

// replica returns another KeyManager over the fixture's store, as a second process
// would have.
func (f *fixture) replica(tb testing.TB) *oauth.KeyManager {
	tb.Helper()
	return oauth.NewKeyManager(f.keyStore, f.box, f.clock.Now, oauth.KeyManagerOptions{MaxTokenTTL: testTTL})
}

var seq atomic.Int64

// appOptions are the optional fields of MustApplication.
type appOptions struct {
	ClientID  string
	Scopes    []string
	Suspended bool
	// CertSHA256 and TokenGeneration are the application's fields of those names.
	CertSHA256      string
	TokenGeneration int
	// Audiences are the application's extra token audiences.
	Audiences []string
}

// MustApplication creates an account and an application and returns its client_id and
// secret. Scopes default to two catalog scopes and one booking scope.
func (f *fixture) MustApplication(tb testing.TB, o appOptions) (clientID, secret string) {
	tb.Helper()
	n := seq.Add(1)
	if o.ClientID == "" {
		o.ClientID = fmt.Sprintf("client-%d", n)
	}
	if o.Scopes == nil {
		o.Scopes = []string{skygate.ScopeCatalogLoungesRead, skygate.ScopeCatalogFastTrackRead, skygate.ScopeBookingRead}
	}
	acct := &skygate.Account{ID: fmt.Sprintf("acct-%d", n), Name: fmt.Sprintf("Account %d", n), Status: skygate.AccountActive}
	if o.Suspended {
		acct.Status = skygate.AccountSuspended
	}
	f.apps.addAccount(acct)
	secret = MustSecret(tb)
	err := f.apps.CreateApplication(context.Background(), &skygate.Application{
		ID: fmt.Sprintf("app-%d", n), AccountID: acct.ID, Name: "app", ClientID: o.ClientID,
		SecretHash: f.hasher.Hash(secret), AllowedScopes: o.Scopes,
		ClientCertSHA256: o.CertSHA256, TokenGeneration: o.TokenGeneration, Audiences: o.Audiences,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return o.ClientID, secret
}

// MustIssue issues a B2B token for a made-up client.
func (f *fixture) MustIssue(tb testing.TB) string {
	tb.Helper()
	return MustIssueWith(tb, f.issuer)
}

func MustIssueWith(tb testing.TB, iss *oauth.Issuer) string {
	tb.Helper()
	tok, _, err := iss.Issue(oauth.Claims{
		Subject: "client-x", ClientID: "client-x", AccountID: "acct-x",
		Scopes: []string{skygate.ScopeCatalogLoungesRead},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return tok
}

func MustBox(tb testing.TB) *seal.Box {
	tb.Helper()
	box, err := seal.New(bytes.Repeat([]byte{9}, seal.KeySize))
	if err != nil {
		tb.Fatal(err)
	}
	return box
}

func MustSecret(tb testing.TB) string {
	tb.Helper()
	s, err := oauth.NewClientSecret()
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func MustEnsureKey(tb testing.TB, m *oauth.KeyManager) {
	tb.Helper()
	if err := m.EnsureKey(context.Background()); err != nil {
		tb.Fatal(err)
	}
}

func MustRotate(tb testing.TB, m *oauth.KeyManager, prepublish time.Duration) string {
	tb.Helper()
	k, err := m.Rotate(context.Background(), prepublish)
	if err != nil {
		tb.Fatal(err)
	}
	return k.ID
}

func MustIssuer(tb testing.TB, m *oauth.KeyManager, cfg oauth.IssuerConfig) *oauth.Issuer {
	tb.Helper()
	iss, err := oauth.NewIssuer(m, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return iss
}

func MustVerifier(tb testing.TB, m *oauth.KeyManager, cfg oauth.VerifierConfig) *oauth.Verifier {
	tb.Helper()
	v, err := oauth.NewVerifier(m, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// MustVerify verifies tok and fails the test on error.
func MustVerify(tb testing.TB, v *oauth.Verifier, tok string) *oauth.Claims {
	tb.Helper()
	c, err := v.Verify(context.Background(), tok)
	if err != nil {
		tb.Fatalf("Verify: %v", err)
	}
	return c
}

// tokenParts decodes the header and payload of a compact JWS.
func tokenParts(tb testing.TB, tok string) (header, payload map[string]any, sig string) {
	tb.Helper()
	parts := splitToken(tb, tok)
	for i, dst := range []*map[string]any{&header, &payload} {
		raw, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil {
			tb.Fatal(err)
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			tb.Fatal(err)
		}
	}
	return header, payload, parts[2]
}

func splitToken(tb testing.TB, tok string) [3]string {
	tb.Helper()
	var parts [3]string
	for i := range 2 {
		j := bytes.IndexByte([]byte(tok), '.')
		if j < 0 {
			tb.Fatalf("not a compact JWS: %q", tok)
		}
		parts[i], tok = tok[:j], tok[j+1:]
	}
	parts[2] = tok
	return parts
}

func b64(v any) string {
	b, ok := v.([]byte)
	if !ok {
		b, _ = json.Marshal(v)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// signES256 builds a compact JWS over header and claims (any JSON values; []byte is
// taken as the JSON text itself) signed with priv, the signature as r||s with s in the
// lower half of the group order, as Issuer signs.
func signES256(tb testing.TB, priv *ecdsa.PrivateKey, header, claims any) string {
	tb.Helper()
	input := b64(header) + "." + b64(claims)
	digest := sha256.Sum256([]byte(input))
	r, s, err := ecdsa.Sign(rand.Reader, priv, digest[:])
	if err != nil {
		tb.Fatal(err)
	}
	if s.Cmp(new(big.Int).Rsh(priv.Params().N, 1)) > 0 {
		s.Sub(priv.Params().N, s)
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return input + "." + b64(sig)
}

// withSignatureS replaces the s half of an ES256 token's signature by f(s): lowS and
// highS pick one of the two valid forms, (r, s) and (r, N−s).
func withSignatureS(tb testing.TB, token string, high bool) string {
	tb.Helper()
	i := strings.LastIndexByte(token, '.')
	sig, err := base64.RawURLEncoding.DecodeString(token[i+1:])
	if err != nil || len(sig) != 64 {
		tb.Fatalf("not an ES256 signature: %q", token[i+1:])
	}
	n := elliptic.P256().Params().N
	s := new(big.Int).SetBytes(sig[32:])
	if (s.Cmp(new(big.Int).Rsh(n, 1)) > 0) != high {
		s.Sub(n, s)
	}
	s.FillBytes(sig[32:])
	return token[:i+1] + b64(sig)
}

func lowS(tb testing.TB, token string) string  { return withSignatureS(tb, token, false) }
func highS(tb testing.TB, token string) string { return withSignatureS(tb, token, true) }

// validClaims returns the claims of a valid token at f's current time.
func (f *fixture) validClaims() map[string]any {
	now := f.clock.Now().Unix()
	return map[string]any{
		"iss": testIssuer, "sub": "client-x", "aud": testIssuer, "client_id": "client-x",
		"account_id": "acct-x", "scopes": []string{skygate.ScopeCatalogLoungesRead},
		"iat": now, "exp": now + 3600, "jti": "jti-1",
	}
}

// validHeader returns the header of a token of the current key.
func (f *fixture) validHeader() map[string]any {
	return map[string]any{"typ": "at+jwt", "kid": f.keys.CurrentKID(), "alg": "ES256"}
}

// with returns a copy of m with the changes; a nil value deletes the member.
func with(m map[string]any, changes map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	for k, v := range changes {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}

// nonCanonical returns seg, a base64url segment whose last character carries unused
// bits, with the lowest of those set: a string that lenient decoders read as the same
// bytes.
func nonCanonical(tb testing.TB, seg string) string {
	tb.Helper()
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	if len(seg)%4 == 0 {
		tb.Fatalf("segment of %d characters has no unused bits", len(seg))
	}
	last := strings.IndexByte(alphabet, seg[len(seg)-1])
	return seg[:len(seg)-1] + string(alphabet[last|1])
}

// paddedClaims returns claims with an extra member sized so that their base64url
// encoding ends in a character with unused bits.
func paddedClaims(claims map[string]any) map[string]any {
	for n := 0; ; n++ {
		c := with(claims, map[string]any{"x": strings.Repeat("a", n)})
		if len(b64(c))%4 != 0 {
			return c
		}
	}
}
