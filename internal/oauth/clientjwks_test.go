package oauth_test

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/skygate/skygate/internal/oauth"
)

// jwkJSON is the JWK of key with kid and alg ("" omits it).
func jwkJSON(tb testing.TB, key any, kid, alg string) string {
	tb.Helper()
	b, err := json.Marshal(jose.JSONWebKey{Key: key, KeyID: kid, Algorithm: alg})
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

func TestParseClientJWKS(t *testing.T) {
	t.Parallel()
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	rs, _ := rsa.GenerateKey(rand.Reader, 2048)
	small, _ := rsa.GenerateKey(rand.Reader, 1024)
	edPub, edPriv, _ := ed25519.GenerateKey(rand.Reader)
	set := func(keys ...string) string { return `{"keys":[` + strings.Join(keys, ",") + `]}` }

	good := set(jwkJSON(t, ec.Public(), "e", "ES256"), jwkJSON(t, rs.Public(), "r", ""), jwkJSON(t, edPub, "d", "EdDSA"))
	stored, err := oauth.ParseClientJWKS([]byte(good))
	if err != nil {
		t.Fatalf("valid set: %v", err)
	}
	var back jose.JSONWebKeySet
	if err := json.Unmarshal(stored, &back); err != nil || len(back.Keys) != 3 {
		t.Fatalf("stored form %s: %v", stored, err)
	}
	if back.Keys[1].Algorithm != "RS256" {
		t.Errorf("inferred alg = %q, want RS256", back.Keys[1].Algorithm)
	}

	many := make([]string, oauth.MaxClientKeys+1)
	for i := range many {
		many[i] = jwkJSON(t, edPub, fmt.Sprint(i), "")
	}
	for _, tc := range []struct {
		name, jwks, want string
	}{
		{"not an object", `[1]`, "must be an object"},
		{"no keys member", `{}`, "must be an object"},
		{"EC private", set(jwkJSON(t, ec, "e", "ES256")), `"d"`},
		{"RSA private", set(jwkJSON(t, rs, "r", "RS256")), `"d"`},
		{"Ed25519 private", set(jwkJSON(t, edPriv, "d", "")), `"d"`},
		{"symmetric", set(`{"kty":"oct","kid":"s","k":"c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"}`), `"k"`},
		{"no kid", set(jwkJSON(t, ec.Public(), "", "")), "kid is required"},
		{"kid twice", set(jwkJSON(t, ec.Public(), "x", ""), jwkJSON(t, edPub, "x", "")), "used twice"},
		{"alg of another kty", set(jwkJSON(t, ec.Public(), "e", "RS256")), "does not fit"},
		{"alg none", set(jwkJSON(t, ec.Public(), "e", "none")), "does not fit"},
		{"P-384", set(jwkJSON(t, p384.Public(), "e", "")), "P-256"},
		{"small RSA", set(jwkJSON(t, small.Public(), "r", "")), "2048"},
		{"encryption use", set(`{"kty":"OKP","crv":"Ed25519","kid":"k","use":"enc","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}`), `use must be`},
		{"too many keys", set(many...), "at most"},
		{"too large", `{"keys":[],"pad":"` + strings.Repeat("x", oauth.MaxClientJWKSBytes) + `"}`, "exceeds"},
		{"not a JWK", set(`{"kty":"EC","kid":"e"}`), "not a valid JWK"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := oauth.ParseClientJWKS([]byte(tc.jwks))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %s", err, tc.want)
			}
		})
	}
}
