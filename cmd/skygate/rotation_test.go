package main

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/skygate/skygate/internal/httpapi"
)

// rotationAnswer is the part of rotate-secret's answer these tests read.
type rotationAnswer struct {
	ID                      string    `json:"id"`
	ClientSecret            string    `json:"client_secret"`
	PreviousSecretExpiresAt time.Time `json:"previous_secret_expires_at"`
}

// mustRotate rotates the application's secret with body and returns the answer.
func (s *testServer) mustRotate(appID, body string) rotationAnswer {
	s.t.Helper()
	resp, out := s.adminCall(http.MethodPost, "/applications/"+appID+"/rotate-secret", body)
	var a rotationAnswer
	if resp.StatusCode != http.StatusOK || json.Unmarshal(out, &a) != nil || a.ClientSecret == "" {
		s.t.Fatalf("rotate-secret %s: %d %s", body, resp.StatusCode, out)
	}
	return a
}

// oauthToken asks s's token endpoint for a token with x/oauth2's client credentials
// flow (client_secret_basic) and returns its error: nil, or the RFC 6749 §5.2 error
// code the client library read.
func (s *testServer) oauthToken(c credentials) error {
	s.t.Helper()
	cfg := clientcredentials.Config{ClientID: c.ClientID, ClientSecret: c.ClientSecret,
		TokenURL: s.base + "/oauth/v2/token", AuthStyle: oauth2.AuthStyleInHeader}
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, s.client)
	tok, err := cfg.Token(ctx)
	var re *oauth2.RetrieveError
	switch {
	case errors.As(err, &re):
		return errors.New(re.ErrorCode)
	case err != nil:
		s.t.Fatalf("token: %v", err)
	case tok.AccessToken == "":
		s.t.Fatal("token: no access token")
	}
	return nil
}

// TestRotateSecretGracePeriod: after rotate-secret with the default grace period both
// secrets get tokens through x/oauth2 on both replicas (one of which had cached the
// application); the application and the audit record name the previous secret's
// expiry; a second rotation drops the oldest secret, and the replaced one is refused
// with invalid_client once its grace period is over.
func TestRotateSecretGracePeriod(t *testing.T) {
	t.Parallel()
	env := engines[1].env(t, nil)
	a := startServer(t, env)
	b := startServer(t, maps.Clone(env))
	first := a.mustBootstrap("graceful", catalogScopes)
	if err := b.oauthToken(first); err != nil { // b now caches the application
		t.Fatalf("before rotation: %v", err)
	}
	_, body := a.adminCall(http.MethodGet, "/accounts/"+first.AccountID+"/applications", "")
	appID := mustJSON(t, body)["data"].([]any)[0].(map[string]any)["id"].(string)

	before := time.Now()
	rotated := a.mustRotate(appID, "")
	after := time.Now()
	if e := rotated.PreviousSecretExpiresAt; e.Before(before.Add(24*time.Hour).Truncate(time.Microsecond)) || e.After(after.Add(24*time.Hour)) {
		t.Errorf("previous_secret_expires_at %v, want a day after the rotation (%v)", e, before)
	}
	second := first
	second.ClientSecret = rotated.ClientSecret
	for _, s := range []*testServer{a, b} {
		for name, c := range map[string]credentials{"the old secret": first, "the new secret": second} {
			if err := s.oauthToken(c); err != nil {
				t.Errorf("%s on %s during the grace period: %v", name, s.base, err)
			}
		}
	}

	var app rotationAnswer
	_, body = a.adminCall(http.MethodGet, "/applications/"+appID, "")
	if err := json.Unmarshal(body, &app); err != nil || !app.PreviousSecretExpiresAt.Equal(rotated.PreviousSecretExpiresAt) {
		t.Errorf("application: %v %s, want previous_secret_expires_at %v", err, body, rotated.PreviousSecretExpiresAt)
	}
	_, body = a.adminCall(http.MethodGet, "/audit-events?action=application.rotate_secret&target_id="+appID, "")
	var audit struct {
		Data []struct{ Details json.RawMessage }
	}
	if err := json.Unmarshal(body, &audit); err != nil || len(audit.Data) != 1 {
		t.Fatalf("audit records: %v %s", err, body)
	}
	var details struct {
		GraceSeconds            int       `json:"grace_seconds"`
		PreviousSecretExpiresAt time.Time `json:"previous_secret_expires_at"`
	}
	if err := json.Unmarshal(audit.Data[0].Details, &details); err != nil || details.GraceSeconds != 86400 ||
		!details.PreviousSecretExpiresAt.Equal(rotated.PreviousSecretExpiresAt) || strings.Contains(string(body), rotated.ClientSecret) {
		t.Errorf("rotation record: %v %s", err, audit.Data[0].Details)
	}

	// A second rotation drops the first secret (at once here, within the cache's ttl on
	// b) and keeps the second for one second.
	third := first
	third.ClientSecret = a.mustRotate(appID, `{"grace_seconds":1}`).ClientSecret
	if err := a.oauthToken(first); err == nil || err.Error() != "invalid_client" {
		t.Errorf("the first secret after a second rotation: %v, want invalid_client", err)
	}
	until := func(what string, s *testServer, c credentials, want string) {
		t.Helper()
		deadline := time.Now().Add(3*httpapi.ApplicationCacheTTL + time.Second)
		for {
			err := s.oauthToken(c)
			if err != nil && err.Error() == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s on %s: still %v", what, s.base, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	until("the first secret", b, first, "invalid_client")
	for _, s := range []*testServer{a, b} {
		until("the second secret after its grace period", s, second, "invalid_client")
		if err := s.oauthToken(third); err != nil {
			t.Errorf("the newest secret on %s: %v", s.base, err)
		}
	}
	_, body = a.adminCall(http.MethodGet, "/applications/"+appID, "")
	if m := mustJSON(t, body); m["previous_secret_expires_at"] == nil {
		t.Errorf("application after the expiry: %s, want the past previous_secret_expires_at", body)
	}
	if m := mustJSON(t, a.mustRotateRaw(appID, `{"grace_seconds":0}`)); m["previous_secret_expires_at"] != nil {
		t.Errorf("rotation at once: previous_secret_expires_at %v, want absent", m["previous_secret_expires_at"])
	}
}

// mustRotateRaw is mustRotate answering the body as it is.
func (s *testServer) mustRotateRaw(appID, body string) []byte {
	s.t.Helper()
	resp, out := s.adminCall(http.MethodPost, "/applications/"+appID+"/rotate-secret", body)
	if resp.StatusCode != http.StatusOK {
		s.t.Fatalf("rotate-secret %s: %d %s", body, resp.StatusCode, out)
	}
	return out
}

// TestRotateSecretHostileBodies: bodies of rotate-secret that are not a valid
// rotation are 400 (not the object) or 422 (a value out of range), problem+json, and
// change nothing: the secret the application had still gets tokens.
func TestRotateSecretHostileBodies(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, hostileEnv(t, e, nil))
		c := s.mustBootstrap("hostile-rotation", catalogScopes)
		_, body := s.adminCall(http.MethodGet, "/accounts/"+c.AccountID+"/applications", "")
		appID := mustJSON(t, body)["data"].([]any)[0].(map[string]any)["id"].(string)
		path := "/api/v1/admin/applications/" + appID + "/rotate-secret"
		adminJSON := map[string]string{"Authorization": "Bearer " + s.adminToken(), "Content-Type": "application/json"}
		var cases []hostileCase
		for _, tc := range []struct {
			body string
			want int
		}{
			{`{"grace_seconds":-1}`, 422},
			{`{"grace_seconds":2592001}`, 422},
			{`{"grace_seconds":9223372036854775807}`, 422},
			{`{"grace_seconds":9223372036854775808}`, 400},
			{`{"grace_seconds":1e999}`, 400},
			{`{"grace_seconds":1.5}`, 400},
			{`{"grace_seconds":"86400"}`, 400},
			{`{"grace_seconds":[1]}`, 400},
			{`{"grace_seconds":true}`, 400},
			{`{"grace_seconds":60,"revoke_tokens":true}`, 422},
			{`{"grace_seconds":60,"grace_seconds":0}`, 400},
			{`{"Grace_Seconds":60}`, 400},
			{`{"grace_seconds\u0000":60}`, 400},
			{`{"grace_seconds":60,"previous_secret_expires_at":"2999-01-01T00:00:00Z"}`, 400},
			{`[{"grace_seconds":60}]`, 400},
			{`{"grace_seconds":60}{"grace_seconds":0}`, 400},
			{`{"grace_seconds":` + strings.Repeat("9", 10_000) + `}`, 400},
		} {
			cases = append(cases, hostileCase{name: "rotate-secret " + truncate(tc.body, 60), method: http.MethodPost,
				path: path, header: adminJSON, body: tc.body, want: tc.want})
		}
		s.runHostile(t, cases)
		if err := s.oauthToken(c); err != nil {
			t.Errorf("the secret after refused rotations: %v", err)
		}
		_, body = s.adminCall(http.MethodGet, "/audit-events?action=application.rotate_secret&target_id="+appID, "")
		if n := mustJSON(t, body)["pagination"].(map[string]any)["total"]; n != float64(0) {
			t.Errorf("%v rotation records after refused rotations, want 0", n)
		}
	})
}

// truncate returns s cut to n bytes for a test name.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
