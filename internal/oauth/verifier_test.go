package oauth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/oauth"
)

func TestIssueVerify(t *testing.T) {
	t.Parallel()
	f := setup(t)
	tok, exp, err := f.issuer.Issue(oauth.Claims{
		Subject: "client-1", ClientID: "client-1", AccountID: "acct-1",
		Scopes: []string{skygate.ScopeBookingRead, skygate.ScopeBookingWrite},
		// Issue overrides these. (Audience is the caller's extra audiences: TestTokenAudiences.)
		Issuer: "https://evil.test", ID: "mine",
	})
	if err != nil {
		t.Fatal(err)
	}
	now := f.clock.Now()
	if want := now.Add(testTTL); !exp.Equal(want) {
		t.Errorf("exp = %v, want %v", exp, want)
	}
	header, payload, _ := tokenParts(t, tok)
	if want := map[string]any{"alg": "ES256", "kid": f.keys.CurrentKID(), "typ": "at+jwt"}; !equalJSON(header, want) {
		t.Errorf("header = %v", header)
	}
	for _, k := range []string{"iss", "sub", "aud", "client_id", "account_id", "scopes", "scope", "exp", "iat", "jti"} {
		if _, ok := payload[k]; !ok {
			t.Errorf("claim %s missing", k)
		}
	}
	if _, ok := payload["roles"]; ok {
		t.Error("roles present in a B2B token")
	}
	if payload["aud"] != testIssuer || payload["iss"] != testIssuer {
		t.Errorf("iss, aud = %v, %v", payload["iss"], payload["aud"])
	}

	c := MustVerify(t, f.verifier, tok)
	if c.Subject != "client-1" || c.ClientID != "client-1" || c.AccountID != "acct-1" ||
		c.Issuer != testIssuer || !slices.Equal(c.Audience, []string{testIssuer}) ||
		!c.HasScope(skygate.ScopeBookingWrite) || c.HasScope(skygate.ScopeESIMRead) ||
		!c.ExpiresAt.Equal(exp) || !c.IssuedAt.Equal(now) || len(c.ID) != 22 || c.ID == "mine" {
		t.Errorf("claims = %+v", c)
	}

	// An employee token: roles, no account_id.
	tok, _, err = f.issuer.Issue(oauth.Claims{Subject: "emp-1", ClientID: "console",
		Scopes: []string{skygate.ScopeAdminAccounts}, Roles: []string{"admin"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, payload, _ := tokenParts(t, tok); payload["account_id"] != nil {
		t.Error("account_id present in an employee token")
	}
	if c := MustVerify(t, f.verifier, tok); c.AccountID != "" || !slices.Equal(c.Roles, []string{"admin"}) {
		t.Errorf("claims = %+v", c)
	}
}

// TestPrincipal checks whom a token acts for, on verified claims (which carry it ready)
// and on claims built by hand.
func TestPrincipal(t *testing.T) {
	t.Parallel()
	f := setup(t)
	tests := []struct {
		claims oauth.Claims
		want   string
	}{
		{oauth.Claims{Subject: "client-1", ClientID: "client-1", AccountID: "acct-1", Scopes: []string{skygate.ScopeBookingRead}}, "account:acct-1"},
		{oauth.Claims{Subject: "emp-1", ClientID: "console", Scopes: []string{skygate.ScopeAdminAccounts}, Roles: []string{"admin"}}, "employee:emp-1"},
	}
	for _, tt := range tests {
		if got := tt.claims.Principal(); got != tt.want {
			t.Errorf("built by hand: Principal() = %q, want %q", got, tt.want)
		}
		tok, _, err := f.issuer.Issue(tt.claims)
		if err != nil {
			t.Fatal(err)
		}
		if got := MustVerify(t, f.verifier, tok).Principal(); got != tt.want {
			t.Errorf("verified: Principal() = %q, want %q", got, tt.want)
		}
	}
}

func TestIssueWithoutKey(t *testing.T) {
	t.Parallel()
	f := setup(t)
	empty := oauth.NewKeyManager(newMemKeyStore(), f.box, f.clock.Now, oauth.KeyManagerOptions{})
	iss := MustIssuer(t, empty, oauth.IssuerConfig{Issuer: testIssuer})
	if _, _, err := iss.Issue(oauth.Claims{Subject: "x"}); !errors.Is(err, oauth.ErrNoSigningKey) {
		t.Fatalf("err = %v", err)
	}
	if _, err := oauth.NewIssuer(empty, oauth.IssuerConfig{Issuer: testIssuer, TTL: 2 * time.Hour}); err == nil {
		t.Error("an Issuer with a TTL above MaxTokenTTL was accepted")
	}
	if _, err := oauth.NewIssuer(empty, oauth.IssuerConfig{}); err == nil {
		t.Error("an Issuer without issuer was accepted")
	}
	if _, err := oauth.NewVerifier(empty, oauth.VerifierConfig{}); err == nil {
		t.Error("a Verifier without issuer was accepted")
	}
}

// TestVerifyRejects feeds Verify tokens that must fail and checks which error it gives.
func TestVerifyRejects(t *testing.T) {
	t.Parallel()
	f := setup(t)
	priv := f.keys.PrivateKey(f.keys.CurrentKID())
	attacker, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	good := f.MustIssue(t)
	parts := splitToken(t, good)
	header, claims := f.validHeader(), f.validClaims()
	now := f.clock.Now().Unix()

	// sigToken replaces the signature of good.
	sigToken := func(sig []byte) string { return parts[0] + "." + parts[1] + "." + b64(sig) }
	rs := func(r, s *big.Int) []byte {
		sig := make([]byte, 64)
		r.FillBytes(sig[:32])
		s.FillBytes(sig[32:])
		return sig
	}
	n := elliptic.P256().Params().N
	hs256 := func(key []byte) string {
		input := b64(with(header, map[string]any{"alg": "HS256"})) + "." + b64(claims)
		m := hmac.New(sha256.New, key)
		m.Write([]byte(input))
		return input + "." + b64(m.Sum(nil))
	}
	pubDER := f.keyStoreKey(t).PublicKeyDER
	otherIssuer := MustIssuer(t, f.keys, oauth.IssuerConfig{Issuer: "https://other.test", Audience: testIssuer, Clock: f.clock.Now})
	otherAudience := MustIssuer(t, f.keys, oauth.IssuerConfig{Issuer: testIssuer, Audience: "https://other-api.test", Clock: f.clock.Now})
	future := MustIssuer(t, f.keys, oauth.IssuerConfig{Issuer: testIssuer, Clock: func() time.Time { return f.clock.Now().Add(2 * time.Minute) }})

	tests := []struct {
		name  string
		token string
		want  error
	}{
		{"valid control", good, nil},
		{"valid, signed by hand", signES256(t, priv, header, claims), nil},
		{"typ uppercase", signES256(t, priv, with(header, map[string]any{"typ": "AT+JWT"}), claims), nil},
		{"typ application/at+jwt", signES256(t, priv, with(header, map[string]any{"typ": "application/at+JWT"}), claims), nil},
		{"aud array", signES256(t, priv, header, with(claims, map[string]any{"aud": []string{"x", testIssuer}})), nil},
		{"within leeway after exp", signES256(t, priv, header, with(claims, map[string]any{"exp": now - 20})), nil},
		{"gen", signES256(t, priv, header, with(claims, map[string]any{"gen": 3})), nil},

		{"empty", "", oauth.ErrInvalidToken},
		{"two parts", parts[0] + "." + parts[1], oauth.ErrInvalidToken},
		{"four parts", good + "." + parts[2], oauth.ErrInvalidToken},
		{"empty signature", parts[0] + "." + parts[1] + ".", oauth.ErrInvalidToken},
		{"empty payload", parts[0] + ".." + parts[2], oauth.ErrInvalidToken},
		{"oversized", good + strings.Repeat("A", oauth.MaxTokenSize), oauth.ErrInvalidToken},
		{"padding", good + "==", oauth.ErrInvalidToken},
		{"std base64 alphabet", strings.NewReplacer("-", "+", "_", "/").Replace(good) + "+/", oauth.ErrInvalidToken},
		{"newline in signature", parts[0] + "." + parts[1] + "." + parts[2][:10] + "\n" + parts[2][10:], oauth.ErrInvalidToken},
		{"space", " " + good, oauth.ErrInvalidToken},
		{"header not JSON", b64([]byte("not json")) + "." + parts[1] + "." + parts[2], oauth.ErrInvalidToken},
		{"payload not JSON", signES256(t, priv, header, "a string"), oauth.ErrInvalidToken},

		{"alg none", b64(with(header, map[string]any{"alg": "none"})) + "." + b64(claims) + ".", oauth.ErrInvalidToken},
		{"alg none with signature", b64(with(header, map[string]any{"alg": "none"})) + "." + b64(claims) + "." + parts[2], oauth.ErrInvalidToken},
		{"alg None", signES256(t, priv, with(header, map[string]any{"alg": "None"}), claims), oauth.ErrInvalidToken},
		{"alg es256 lowercase", signES256(t, priv, with(header, map[string]any{"alg": "es256"}), claims), oauth.ErrInvalidToken},
		{"alg missing", signES256(t, priv, with(header, map[string]any{"alg": nil}), claims), oauth.ErrInvalidToken},
		{"HS256 keyed with the public key DER", hs256(pubDER), oauth.ErrInvalidToken},
		{"HS256 keyed with the JWKS", hs256(f.keys.JWKS()), oauth.ErrInvalidToken},
		{"ES384 header, ES256 signature", signES256(t, priv, with(header, map[string]any{"alg": "ES384"}), claims), oauth.ErrInvalidToken},
		{"typ JWT", signES256(t, priv, with(header, map[string]any{"typ": "JWT"}), claims), oauth.ErrInvalidToken},
		{"typ missing", signES256(t, priv, with(header, map[string]any{"typ": nil}), claims), oauth.ErrInvalidToken},
		{"crit", signES256(t, priv, with(header, map[string]any{"crit": []string{"exp"}, "exp": 1}), claims), oauth.ErrInvalidToken},
		{"kid missing", signES256(t, priv, with(header, map[string]any{"kid": nil}), claims), oauth.ErrInvalidToken},
		{"unknown kid", signES256(t, attacker, with(header, map[string]any{"kid": "attacker"}), claims), oauth.ErrInvalidToken},
		{"our kid, attacker key", signES256(t, attacker, header, claims), oauth.ErrInvalidToken},

		{"tampered claims", parts[0] + "." + b64(with(claims, map[string]any{"scopes": skygate.AllScopes})) + "." + parts[2], oauth.ErrInvalidToken},
		{"tampered header", b64(with(header, map[string]any{"x": "y"})) + "." + parts[1] + "." + parts[2], oauth.ErrInvalidToken},
		{"signature 63 bytes", sigToken(make([]byte, 63)), oauth.ErrInvalidToken},
		{"signature 65 bytes", sigToken(make([]byte, 65)), oauth.ErrInvalidToken},
		{"signature 96 bytes", sigToken(make([]byte, 96)), oauth.ErrInvalidToken},
		{"signature DER", derSigToken(t, priv, parts), oauth.ErrInvalidToken},
		{"r = 0", sigToken(rs(big.NewInt(0), big.NewInt(1))), oauth.ErrInvalidToken},
		{"s = 0", sigToken(rs(big.NewInt(1), big.NewInt(0))), oauth.ErrInvalidToken},
		{"r = s = 0", sigToken(make([]byte, 64)), oauth.ErrInvalidToken},
		{"r = N", sigToken(rs(n, big.NewInt(1))), oauth.ErrInvalidToken},
		{"s = N", sigToken(rs(big.NewInt(1), n)), oauth.ErrInvalidToken},
		{"signature all ones", sigToken([]byte(strings.Repeat("\xff", 64))), oauth.ErrInvalidToken},
		{"high-s twin of a valid token", highS(t, good), oauth.ErrInvalidToken},
		{"high-s twin, signed by hand", highS(t, signES256(t, priv, header, claims)), oauth.ErrInvalidToken},
		{"non-canonical signature encoding", parts[0] + "." + parts[1] + "." + nonCanonical(t, parts[2]), oauth.ErrInvalidToken},
		{"non-canonical payload encoding", func() string {
			p := splitToken(t, signES256(t, priv, header, paddedClaims(claims)))
			return p[0] + "." + nonCanonical(t, p[1]) + "." + p[2]
		}(), oauth.ErrInvalidToken},
		{"non-canonical header encoding", func() string {
			h := with(header, map[string]any{"x": "ab"})
			for len(b64(h))%4 == 0 {
				h["x"] = h["x"].(string) + "a"
			}
			p := splitToken(t, signES256(t, priv, h, claims))
			return nonCanonical(t, p[0]) + "." + p[1] + "." + p[2]
		}(), oauth.ErrInvalidToken},
		{"padded claims control", signES256(t, priv, header, paddedClaims(claims)), nil},
		{"s = N/2 + 1", sigToken(rs(big.NewInt(1), new(big.Int).Add(new(big.Int).Rsh(n, 1), big.NewInt(1)))), oauth.ErrInvalidToken},

		{"header: alg twice", signES256(t, priv, []byte(`{"alg":"none","kid":"`+header["kid"].(string)+`","typ":"at+jwt","alg":"ES256"}`), claims), oauth.ErrInvalidToken},
		{"header: kid twice", signES256(t, priv, []byte(`{"alg":"ES256","kid":"attacker","typ":"at+jwt","kid":"`+header["kid"].(string)+`"}`), claims), oauth.ErrInvalidToken},
		{"header: typ twice", signES256(t, priv, []byte(`{"alg":"ES256","kid":"`+header["kid"].(string)+`","typ":"JWT","typ":"at+jwt"}`), claims), oauth.ErrInvalidToken},
		{"header: crit twice", signES256(t, priv, []byte(`{"alg":"ES256","kid":"`+header["kid"].(string)+`","typ":"at+jwt","crit":["x"],"crit":null}`), claims), oauth.ErrInvalidToken},
		{"header: invalid UTF-8", signES256(t, priv, []byte("{\"alg\":\"ES256\",\"kid\":\""+header["kid"].(string)+"\",\"typ\":\"at+jwt\",\"x\":\"\xff\"}"), claims), oauth.ErrInvalidToken},
		{"payload: account_id twice", signES256(t, priv, header, duplicateMember(t, claims, "account_id", "acct-other")), oauth.ErrInvalidToken},
		{"payload: scopes twice", signES256(t, priv, header, duplicateMember(t, claims, "scopes", skygate.AllScopes)), oauth.ErrInvalidToken},

		{"wrong iss", MustIssueWith(t, otherIssuer), oauth.ErrInvalidToken},
		{"iss missing", signES256(t, priv, header, with(claims, map[string]any{"iss": nil})), oauth.ErrInvalidToken},
		{"exp missing", signES256(t, priv, header, with(claims, map[string]any{"exp": nil})), oauth.ErrInvalidToken},
		{"exp a string", signES256(t, priv, header, with(claims, map[string]any{"exp": "tomorrow"})), oauth.ErrInvalidToken},
		{"expired beyond leeway", signES256(t, priv, header, with(claims, map[string]any{"exp": now - 31})), oauth.ErrInvalidToken},
		{"iat missing", signES256(t, priv, header, with(claims, map[string]any{"iat": nil})), oauth.ErrInvalidToken},
		{"iat in the future", MustIssueWith(t, future), oauth.ErrInvalidToken},
		{"nbf in the future", signES256(t, priv, header, with(claims, map[string]any{"nbf": now + 60})), oauth.ErrInvalidToken},
		{"sub missing", signES256(t, priv, header, with(claims, map[string]any{"sub": nil})), oauth.ErrInvalidToken},
		{"jti missing", signES256(t, priv, header, with(claims, map[string]any{"jti": nil})), oauth.ErrInvalidToken},
		{"B2B scope without account_id", signES256(t, priv, header, with(claims, map[string]any{"account_id": nil})), oauth.ErrInvalidToken},
		{"B2B scope with an empty account_id", signES256(t, priv, header, with(claims, map[string]any{"account_id": ""})), oauth.ErrInvalidToken},
		{"gen a fraction", signES256(t, priv, header, with(claims, map[string]any{"gen": 1.5})), oauth.ErrInvalidToken},
		{"gen with an exponent", signES256(t, priv, header, with(claims, map[string]any{"gen": json.Number("1e3")})), oauth.ErrInvalidToken},
		{"gen with a decimal point", signES256(t, priv, header, with(claims, map[string]any{"gen": json.Number("2.0")})), oauth.ErrInvalidToken},
		{"gen a string", signES256(t, priv, header, with(claims, map[string]any{"gen": "2"})), oauth.ErrInvalidToken},
		{"gen a boolean", signES256(t, priv, header, with(claims, map[string]any{"gen": true})), oauth.ErrInvalidToken},
		{"gen negative", signES256(t, priv, header, with(claims, map[string]any{"gen": -1})), oauth.ErrInvalidToken},
		{"gen past the largest int", signES256(t, priv, header, with(claims, map[string]any{"gen": json.Number("9223372036854775808")})), oauth.ErrInvalidToken},
		{"gen huge", signES256(t, priv, header, with(claims, map[string]any{"gen": json.Number("1" + strings.Repeat("0", 400))})), oauth.ErrInvalidToken},
		{"payload: gen twice", signES256(t, priv, header, duplicateMember(t, with(claims, map[string]any{"gen": 1}), "gen", 9)), oauth.ErrInvalidToken},
		{"expired and wrong aud", signES256(t, priv, header, with(claims, map[string]any{"exp": now - 60, "aud": "x"})), oauth.ErrInvalidToken},

		{"wrong aud", MustIssueWith(t, otherAudience), oauth.ErrWrongAudience},
		{"aud missing", signES256(t, priv, header, with(claims, map[string]any{"aud": nil})), oauth.ErrWrongAudience},
		{"aud array without us", signES256(t, priv, header, with(claims, map[string]any{"aud": []string{"a", "b"}})), oauth.ErrWrongAudience},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := f.verifier.Verify(context.Background(), tt.token)
			switch {
			case tt.want == nil && err != nil:
				t.Fatalf("Verify: %v", err)
			case tt.want != nil && !errors.Is(err, tt.want):
				t.Fatalf("err = %v, want %v", err, tt.want)
			case tt.want != nil && c != nil:
				t.Fatal("claims returned with an error")
			case errors.Is(tt.want, oauth.ErrInvalidToken) && errors.Is(err, oauth.ErrWrongAudience),
				errors.Is(tt.want, oauth.ErrWrongAudience) && errors.Is(err, oauth.ErrInvalidToken):
				t.Fatalf("err = %v matches both sentinels", err)
			}
		})
	}
}

// TestIssuerSignsLowS: every signature Issuer makes has s ≤ N/2, the only form Verify
// accepts, so no token of ours is refused for it (half of ECDSA's signatures come out
// high).
func TestIssuerSignsLowS(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for range 64 {
		tok := f.MustIssue(t)
		if lowS(t, tok) != tok {
			t.Fatalf("high-s signature: %s", tok)
		}
		MustVerify(t, f.verifier, tok)
	}
}

// duplicateMember returns the JSON text of claims with a second member name holding
// v after the others.
func duplicateMember(tb testing.TB, claims map[string]any, name string, v any) []byte {
	tb.Helper()
	b, err := json.Marshal(claims)
	if err != nil {
		tb.Fatal(err)
	}
	extra, err := json.Marshal(map[string]any{name: v})
	if err != nil {
		tb.Fatal(err)
	}
	return append(b[:len(b)-1], append([]byte{','}, extra[1:]...)...)
}

// derSigToken re-signs parts with an ASN.1 DER signature, the form JWS forbids.
func derSigToken(tb testing.TB, priv *ecdsa.PrivateKey, parts [3]string) string {
	tb.Helper()
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	sig, err := ecdsa.SignASN1(rand.Reader, priv, digest[:])
	if err != nil {
		tb.Fatal(err)
	}
	return parts[0] + "." + parts[1] + "." + b64(sig)
}

func TestVerifyCache(t *testing.T) {
	t.Parallel()
	f := setup(t)
	tok := f.MustIssue(t)
	first := MustVerify(t, f.verifier, tok)
	if f.verifier.CacheLen() != 1 {
		t.Fatalf("cache holds %d tokens", f.verifier.CacheLen())
	}
	second := MustVerify(t, f.verifier, tok)
	if second != first {
		t.Error("a cache hit returned other claims")
	}

	// Still valid just inside the leeway, then rejected although cached.
	f.clock.Advance(testTTL + 30*time.Second)
	MustVerify(t, f.verifier, tok)
	f.clock.Advance(time.Second)
	if _, err := f.verifier.Verify(context.Background(), tok); !errors.Is(err, oauth.ErrInvalidToken) {
		t.Fatalf("expired cached token: err = %v", err)
	}
	if f.verifier.CacheLen() != 0 {
		t.Error("the expired token stayed cached")
	}

	// Failed verifications are not cached.
	bad := tok[:len(tok)-2] + "AA"
	for range 2 {
		if _, err := f.verifier.Verify(context.Background(), bad); err == nil {
			t.Fatal("tampered token verified")
		}
	}
	if f.verifier.CacheLen() != 0 {
		t.Error("a failure was cached")
	}
}

// TestVerifyAt: VerifyAt judges expiry at the time it is given, not the clock's, on
// a cache miss and on a hit alike.
func TestVerifyAt(t *testing.T) {
	t.Parallel()
	f := setup(t)
	tok := f.MustIssue(t)
	late := f.clock.Now().Add(testTTL + 31*time.Second) // past exp and the leeway
	for _, what := range []string{"miss", "hit"} {
		if _, err := f.verifier.VerifyAt(context.Background(), tok, late); !errors.Is(err, oauth.ErrInvalidToken) {
			t.Fatalf("%s: VerifyAt after expiry: err = %v", what, err)
		}
		if _, err := f.verifier.VerifyAt(context.Background(), tok, f.clock.Now()); err != nil {
			t.Fatalf("%s: VerifyAt now: %v", what, err)
		}
	}
}

// TestVerifyCacheSharedKey: a forgery that copies a cached token's signature onto other
// claims, so that the two end alike, must fail, and must leave the cached token's entry
// in place.
func TestVerifyCacheSharedKey(t *testing.T) {
	t.Parallel()
	f := setup(t)
	tok := f.MustIssue(t)
	first := MustVerify(t, f.verifier, tok)
	other := f.MustIssue(t)
	i, j := strings.LastIndexByte(tok, '.'), strings.LastIndexByte(other, '.')
	forged := other[:j] + tok[i:]
	if forged == tok || forged[len(forged)-24:] != tok[len(tok)-24:] {
		t.Fatal("the forgery does not end as the cached token does")
	}
	for range 2 {
		if _, err := f.verifier.Verify(context.Background(), forged); !errors.Is(err, oauth.ErrInvalidToken) {
			t.Fatalf("forged token: err = %v", err)
		}
	}
	if got := MustVerify(t, f.verifier, tok); got != first {
		t.Error("the cached token was verified again: the forgery disturbed its entry")
	}
	if f.verifier.CacheLen() != 1 {
		t.Errorf("cache holds %d tokens, want 1", f.verifier.CacheLen())
	}
	MustVerify(t, f.verifier, other)
	if f.verifier.CacheLen() != 2 {
		t.Errorf("cache holds %d tokens, want 2", f.verifier.CacheLen())
	}
}

// TestVerifyCacheDeletedKey shows that a cached token stops verifying once its key has
// been deleted from the store (an emergency revocation) and the keys reloaded.
func TestVerifyCacheDeletedKey(t *testing.T) {
	t.Parallel()
	f := setup(t)
	tok := f.MustIssue(t)
	MustVerify(t, f.verifier, tok)
	old := f.keys.CurrentKID()
	MustRotate(t, f.keys, 0)
	if err := f.keyStore.DeleteSigningKeys(context.Background(), []string{old}); err != nil {
		t.Fatal(err)
	}
	if err := f.keys.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := f.verifier.Verify(context.Background(), tok); !errors.Is(err, oauth.ErrInvalidToken) {
		t.Fatalf("token of a deleted key: err = %v", err)
	}
}

func TestVerifyConcurrent(t *testing.T) {
	t.Parallel()
	f := setup(t)
	toks := make([]string, 8)
	for i := range toks {
		toks[i] = f.MustIssue(t)
	}
	done := make(chan error)
	for g := range 8 {
		go func() {
			var err error
			for i := range 200 {
				if _, e := f.verifier.Verify(context.Background(), toks[(g+i)%len(toks)]); e != nil {
					err = e
				}
			}
			done <- err
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

func (f *fixture) keyStoreKey(tb testing.TB) *skygate.SigningKey {
	tb.Helper()
	keys, err := f.keyStore.SigningKeys(context.Background())
	if err != nil || len(keys) == 0 {
		tb.Fatalf("no stored key: %v", err)
	}
	return keys[len(keys)-1]
}

func equalJSON(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
