package oauth_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/oauth"
)

// privateClaims are the non-registered claims of a Skygate token.
type privateClaims struct {
	ClientID  string   `json:"client_id"`
	AccountID string   `json:"account_id"`
	Scopes    []string `json:"scopes"`
}

// TestInteropGoJose verifies our tokens the way a partner would: with go-jose and the
// published JWKS only.
func TestInteropGoJose(t *testing.T) {
	t.Parallel()
	f := setup(t)
	MustRotate(t, f.keys, 0) // two keys in the JWKS
	tok, _, err := f.issuer.Issue(oauth.Claims{Subject: "client-1", ClientID: "client-1", AccountID: "acct-1",
		Scopes: []string{skygate.ScopeCatalogESIMRead, skygate.ScopeESIMWrite}})
	if err != nil {
		t.Fatal(err)
	}

	var set jose.JSONWebKeySet
	if err := json.Unmarshal(f.keys.JWKS(), &set); err != nil {
		t.Fatal(err)
	}
	if len(set.Keys) != 2 {
		t.Fatalf("JWKS has %d keys", len(set.Keys))
	}
	for _, k := range set.Keys {
		tp, err := k.Thumbprint(crypto.SHA256)
		if err != nil {
			t.Fatal(err)
		}
		if got := base64.RawURLEncoding.EncodeToString(tp); got != k.KeyID {
			t.Errorf("kid %s is not the RFC 7638 thumbprint %s", k.KeyID, got)
		}
		if !k.Valid() || !k.IsPublic() || k.Algorithm != "ES256" || k.Use != "sig" {
			t.Errorf("JWK %+v", k)
		}
	}

	parsed, err := jwt.ParseSigned(tok, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatal(err)
	}
	h := parsed.Headers[0]
	if h.KeyID != f.keys.CurrentKID() || h.ExtraHeaders["typ"] != "at+jwt" {
		t.Fatalf("header %+v", h)
	}
	keys := set.Key(h.KeyID)
	if len(keys) != 1 {
		t.Fatalf("kid %s not in the JWKS", h.KeyID)
	}
	var std jwt.Claims
	var priv privateClaims
	if err := parsed.Claims(keys[0].Key, &std, &priv); err != nil {
		t.Fatalf("go-jose rejects the signature: %v", err)
	}
	err = std.ValidateWithLeeway(jwt.Expected{
		Issuer: testIssuer, AnyAudience: jwt.Audience{testIssuer}, Time: f.clock.Now(),
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if std.Subject != "client-1" || std.ID == "" || priv.AccountID != "acct-1" || priv.ClientID != "client-1" ||
		!slices.Equal(priv.Scopes, []string{skygate.ScopeCatalogESIMRead, skygate.ScopeESIMWrite}) {
		t.Fatalf("claims %+v %+v", std, priv)
	}
}

// joseToken signs claims with go-jose.
func joseToken(tb testing.TB, alg jose.SignatureAlgorithm, key any, kid string, opts *jose.SignerOptions, claims any) string {
	tb.Helper()
	if opts == nil {
		opts = &jose.SignerOptions{}
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: jose.JSONWebKey{Key: key, KeyID: kid}}, opts)
	if err != nil {
		tb.Fatal(err)
	}
	tok, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		tb.Fatal(err)
	}
	return tok
}

// TestInteropForgedGoJose: tokens that go-jose builds with our key verify; forgeries
// that go-jose builds do not.
func TestInteropForgedGoJose(t *testing.T) {
	t.Parallel()
	f := setup(t)
	kid := f.keys.CurrentKID()
	ours := f.keys.PrivateKey(kid)
	claims := f.validClaims()
	atJWT := func() *jose.SignerOptions { return (&jose.SignerOptions{}).WithType("at+jwt") }
	p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	point, _ := ours.PublicKey.Bytes()

	// A JWS JSON serialization of a valid signature.
	signer, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: ours, KeyID: kid}}, atJWT())
	payload, _ := json.Marshal(claims)
	jws, _ := signer.Sign(payload)
	full := jws.FullSerialize()

	tests := []struct {
		name  string
		token string
		ok    bool
	}{
		{"go-jose ES256 with our key", lowS(t, joseToken(t, jose.ES256, ours, kid, atJWT(), claims)), true},
		{"go-jose ES256 with our key, high-s form", highS(t, joseToken(t, jose.ES256, ours, kid, atJWT(), claims)), false},
		{"HS256 keyed with the public key DER", joseToken(t, jose.HS256, f.keyStoreKey(t).PublicKeyDER, kid, atJWT(), claims), false},
		{"HS256 keyed with the EC point", joseToken(t, jose.HS256, point, kid, atJWT(), claims), false},
		{"ES384", joseToken(t, jose.ES384, p384, kid, atJWT(), claims), false},
		{"RS256", joseToken(t, jose.RS256, rsaKey, kid, atJWT(), claims), false},
		{"PS256", joseToken(t, jose.PS256, rsaKey, kid, atJWT(), claims), false},
		{"ES256 attacker key, our kid", joseToken(t, jose.ES256, p256, kid, atJWT(), claims), false},
		{"ES256 attacker key, embedded jwk", joseToken(t, jose.ES256, p256, "", atJWT().WithHeader("jwk", jose.JSONWebKey{Key: &p256.PublicKey}), claims), false},
		{"typ JWT", joseToken(t, jose.ES256, ours, kid, (&jose.SignerOptions{}).WithType("JWT"), claims), false},
		{"crit", joseToken(t, jose.ES256, ours, kid, atJWT().WithCritical("exp").WithHeader("exp", 1), claims), false},
		{"JSON serialization", full, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := f.verifier.Verify(context.Background(), tt.token)
			if tt.ok && err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if !tt.ok && !errors.Is(err, oauth.ErrInvalidToken) {
				t.Fatalf("err = %v, want ErrInvalidToken", err)
			}
		})
	}
}
