package oauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/oauth"
)

// Revocation and certificate binding as the oauth package sees them: the tokens the
// client_credentials grant issues (iat, cnf), the verifier reading cnf, and the
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

// TestGrantIssuesAtOrAfterTokensNotBefore: right after a revocation the application's
// cut-off lies ahead, and its new tokens carry it as iat (exp a TTL later) so that they
// are not revoked with the old ones; once it has passed, iat is now again.
func TestGrantIssuesAtOrAfterTokensNotBefore(t *testing.T) {
	t.Parallel()
	f := setup(t)
	now := f.clock.Now()
	for _, tc := range []struct {
		name      string
		notBefore time.Time
		wantIat   time.Time
	}{
		{"never revoked", time.Time{}, now},
		{"cut-off ahead", now.Add(2 * time.Second), now.Add(2 * time.Second)},
		{"cut-off ahead by a fraction", now.Add(1500 * time.Millisecond), now.Add(2 * time.Second)},
		{"cut-off passed", now.Add(-time.Minute), now},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			id, secret := f.MustApplication(t, appOptions{TokensNotBefore: tc.notBefore})
			c, _ := f.clientToken(t, id, secret)
			if !c.IssuedAt.Equal(tc.wantIat) || !c.ExpiresAt.Equal(tc.wantIat.Add(testTTL)) {
				t.Fatalf("iat %v exp %v, want iat %v and exp a TTL later", c.IssuedAt, c.ExpiresAt, tc.wantIat)
			}
			if c.IssuedAt.Before(tc.notBefore) {
				t.Fatalf("iat %v before the cut-off %v", c.IssuedAt, tc.notBefore)
			}
		})
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

// TestRevocationNotBefore: the cut-off of a revocation lies past the cache's ttl, the
// time another replica may still issue tokens from the application it cached.
func TestRevocationNotBefore(t *testing.T) {
	t.Parallel()
	now := time.Date(2030, 1, 2, 3, 4, 5, 600, time.UTC)
	c := oauth.NewApplicationCache(newMemAppStore(), time.Second, nil)
	if got := c.RevocationNotBefore(now); !got.After(now.Add(time.Second)) {
		t.Errorf("RevocationNotBefore(%v) = %v, not past the ttl", now, got)
	}
}
