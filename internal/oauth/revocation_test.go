package oauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/oauth"
)

// Revocation and certificate binding as the oauth package sees them: the tokens the
// client_credentials grant issues (gen, cnf), the verifier reading them, and the
// application cache remembering deleted applications for verified tokens.

// clientToken asks the fixture's token endpoint for a token and returns its verified
// claims and raw payload.
func (f *fixture) clientToken(tb testing.TB, id, secret string) (*oauth.Claims, map[string]any) {
	tb.Helper()
	w := f.post(tb, tokenCall{contentType: formType, body: form("grant_type", "client_credentials"), basic: []string{id, secret}})
	if w.Code != 200 {
		tb.Fatalf("token: %d %s", w.Code, w.Body)
	}
	var resp struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil {
		tb.Fatal(err)
	}
	_, payload, _ := tokenParts(tb, resp.AccessToken)
	return MustVerify(tb, f.verifier, resp.AccessToken), payload
}

// TestGrantWritesGeneration: the client_credentials grant writes the application's
// TokenGeneration as gen, omitted while it is 0 (the payload of a never-revoked
// application is what it was before gen existed), and issues with iat now whatever the
// generation.
func TestGrantWritesGeneration(t *testing.T) {
	t.Parallel()
	f := setup(t)
	now := f.clock.Now()
	for _, gen := range []int{0, 1, 35, math.MaxInt32} {
		t.Run(fmt.Sprint(gen), func(t *testing.T) {
			t.Parallel()
			id, secret := f.MustApplication(t, appOptions{TokenGeneration: gen})
			c, payload := f.clientToken(t, id, secret)
			if c.Generation != gen {
				t.Errorf("verified Generation %d, want %d", c.Generation, gen)
			}
			raw, present := payload["gen"]
			switch {
			case gen == 0 && present:
				t.Errorf("gen %v in the token of a never-revoked application", raw)
			case gen != 0 && raw != float64(gen):
				t.Errorf("gen = %v, want %d", raw, gen)
			}
			if !c.IssuedAt.Equal(now) || !c.ExpiresAt.Equal(now.Add(testTTL)) {
				t.Errorf("iat %v exp %v, want iat %v and exp a TTL later", c.IssuedAt, c.ExpiresAt, now)
			}
		})
	}
}

// TestGrantGenerationOfTheAuthenticatedApplication: gen is the generation of the
// application as the grant authenticated it. A replica that still caches the
// application from before another replica's revocation accepts the replaced secret
// until its entry expires and writes the revoked generation into that token; the new
// secret makes it read the store again and write the new generation.
func TestGrantGenerationOfTheAuthenticatedApplication(t *testing.T) {
	t.Parallel()
	f := setup(t)
	id, secret := f.MustApplication(t, appOptions{})
	if c, _ := f.clientToken(t, id, secret); c.Generation != 0 {
		t.Fatalf("before the revocation: gen %d", c.Generation)
	}
	app, _, err := f.apps.ApplicationByClientID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	newSecret := MustSecret(t)
	revoked, err := f.apps.SetApplicationSecretRevokingTokens(context.Background(), app.AccountID, app.ID, f.hasher.Hash(newSecret), f.clock.Now())
	if err != nil || revoked.TokenGeneration != 1 {
		t.Fatalf("revocation: %+v, %v", revoked, err)
	}
	if c, _ := f.clientToken(t, id, secret); c.Generation != 0 {
		t.Errorf("the replaced secret from the cache: gen %d, want the cached 0", c.Generation)
	}
	if c, _ := f.clientToken(t, id, newSecret); c.Generation != 1 {
		t.Errorf("the new secret: gen %d, want 1", c.Generation)
	}
}

// TestVerifyReadsGeneration: the verifier returns gen as Generation, 0 when absent.
// What it refuses is in TestVerifyRejects.
func TestVerifyReadsGeneration(t *testing.T) {
	t.Parallel()
	f := setup(t)
	priv := f.keys.PrivateKey(f.keys.CurrentKID())
	header, claims := f.validHeader(), f.validClaims()
	for _, tc := range []struct {
		gen  any
		want int
	}{{nil, 0}, {0, 0}, {1, 1}, {35, 35}, {math.MaxInt, math.MaxInt}} {
		tok := signES256(t, priv, header, with(claims, map[string]any{"gen": tc.gen}))
		if c := MustVerify(t, f.verifier, tok); c.Generation != tc.want {
			t.Errorf("gen %v: Generation %d, want %d", tc.gen, c.Generation, tc.want)
		}
	}
	if c := MustVerify(t, f.verifier, f.MustIssue(t)); c.Generation != 0 {
		t.Errorf("a token issued without a generation: Generation %d", c.Generation)
	}
}

// TestGrantBindsTokensToTheCertificate: an application bound to a client certificate
// gets tokens with cnf.x5t#S256 (RFC 8705 §3.1); an unbound one gets no cnf at all.
func TestGrantBindsTokensToTheCertificate(t *testing.T) {
	t.Parallel()
	f := setup(t)
	const thumb = "uG2T6TrlBbL3n2mGXQ7Vd3aUeYqJ0w4Sg1kF3s0yNfE"
	id, secret := f.MustApplication(t, appOptions{CertSHA256: thumb})
	c, payload := f.clientToken(t, id, secret)
	if c.CertThumbprint != thumb {
		t.Errorf("verified CertThumbprint %q, want %q", c.CertThumbprint, thumb)
	}
	if cnf, _ := payload["cnf"].(map[string]any); len(cnf) != 1 || cnf["x5t#S256"] != thumb {
		t.Errorf("cnf = %v, want {x5t#S256: %s}", payload["cnf"], thumb)
	}

	id, secret = f.MustApplication(t, appOptions{})
	c, payload = f.clientToken(t, id, secret)
	if _, ok := payload["cnf"]; ok || c.CertThumbprint != "" {
		t.Errorf("unbound application: cnf %v, CertThumbprint %q", payload["cnf"], c.CertThumbprint)
	}
}

// TestVerifyReadsConfirmation: the verifier returns cnf's thumbprint and refuses a
// confirmation that binds to nothing it knows.
func TestVerifyReadsConfirmation(t *testing.T) {
	t.Parallel()
	f := setup(t)
	priv := f.keys.PrivateKey(f.keys.CurrentKID())
	header, claims := f.validHeader(), f.validClaims()
	bound := signES256(t, priv, header, with(claims, map[string]any{"cnf": map[string]any{"x5t#S256": "thumb"}}))
	if c := MustVerify(t, f.verifier, bound); c.CertThumbprint != "thumb" {
		t.Errorf("CertThumbprint %q", c.CertThumbprint)
	}
	for name, cnf := range map[string]any{
		"empty cnf":             map[string]any{},
		"empty thumbprint":      map[string]any{"x5t#S256": ""},
		"another method only":   map[string]any{"jkt": "key-thumbprint"},
		"cnf of the wrong type": "x5t",
	} {
		tok := signES256(t, priv, header, with(claims, map[string]any{"cnf": cnf}))
		if _, err := f.verifier.Verify(context.Background(), tok); !errors.Is(err, oauth.ErrInvalidToken) {
			t.Errorf("%s: err = %v, want ErrInvalidToken", name, err)
		}
	}
}

// TestTokenApplicationRemembersDeletion: the tokens of a deleted application cost one
// store read per ttl, not one per request; a client id that only unverified input
// named (the token endpoint's) is never remembered.
func TestTokenApplicationRemembersDeletion(t *testing.T) {
	t.Parallel()
	f := setup(t)
	id, secret := f.MustApplication(t, appOptions{})
	app, _, err := f.appCache.TokenApplication(context.Background(), id)
	if err != nil || app.ClientID != id {
		t.Fatalf("TokenApplication: %v, %v", app, err)
	}
	if err := f.apps.DeleteApplication(context.Background(), app.AccountID, app.ID); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(testAppTTL)
	reads := f.apps.reads.Load()
	for range 10 {
		if _, _, err := f.appCache.TokenApplication(context.Background(), id); !skygate.IsCode(err, skygate.CodeNotFound) {
			t.Fatalf("deleted application: err = %v, want NotFound", err)
		}
	}
	if n := f.apps.reads.Load() - reads; n != 1 {
		t.Errorf("%d store reads for 10 lookups of a deleted application, want 1", n)
	}
	mustRefuse(t, f, id, secret, "the token endpoint, for a deleted application remembered")
	f.clock.Advance(testAppTTL)
	f.appCache.TokenApplication(context.Background(), id)
	if n := f.apps.reads.Load() - reads; n != 2 {
		t.Errorf("%d store reads after the ttl, want 2", n)
	}
	f.appCache.Forget(id)
	if n := f.appCache.Len(); n != 0 {
		t.Errorf("%d entries after Forget", n)
	}

	// The account poll and ForgetAccount pass over remembered absences.
	f.appCache.TokenApplication(context.Background(), id)
	f.appCache.AccountChanged(&skygate.Account{ID: app.AccountID, Status: skygate.AccountSuspended})
	f.appCache.ForgetAccount(app.AccountID)

	// Unverified input: the token endpoint's unknown clients and ApplicationByClientID.
	f.appCache.Forget(id)
	for i := range 20 {
		mustRefuse(t, f, "nobody-"+string(rune('a'+i)), MustSecret(t), "an unknown client")
		f.appCache.ApplicationByClientID(context.Background(), "nobody-else")
	}
	if n := f.appCache.Len(); n != 0 {
		t.Errorf("%d entries after unknown clients of unverified input", n)
	}
}
