package main

import (
	"encoding/json"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate/internal/httpapi"
)

// adminCall sends an admin API request with an employee token.
func (s *testServer) adminCall(method, path, body string) (*http.Response, []byte) {
	s.t.Helper()
	h := map[string]string{"Authorization": "Bearer " + s.adminToken()}
	var rd *strings.Reader
	if body != "" {
		h["Content-Type"] = "application/json"
		rd = strings.NewReader(body)
	}
	if rd == nil {
		return s.do(s.client, method, s.base+"/api/v1/admin"+path, nil, h)
	}
	return s.do(s.client, method, s.base+"/api/v1/admin"+path, rd, h)
}

func mustJSON(tb testing.TB, body []byte) map[string]any {
	tb.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		tb.Fatalf("%v: %.300s", err, body)
	}
	return m
}

func TestAdminAccountsAndApplications(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))

		resp, body := s.adminCall(http.MethodPost, "/accounts", `{"name":"Silk Road Travel"}`)
		if resp.StatusCode != 201 {
			t.Fatalf("create account: %d %s", resp.StatusCode, body)
		}
		acc := mustJSON(t, body)
		accID := acc["id"].(string)
		if resp.Header.Get("Location") != "/api/v1/admin/accounts/"+accID || acc["status"] != "active" {
			t.Errorf("account %v Location %q", acc, resp.Header.Get("Location"))
		}
		if resp, _ := s.adminCall(http.MethodPost, "/accounts", `{"name":"Silk Road Travel"}`); resp.StatusCode != 409 {
			t.Errorf("duplicate name: %d", resp.StatusCode)
		}
		for _, bad := range []string{`{"name":""}`, `{"name":"` + strings.Repeat("n", 129) + `"}`} {
			if resp, _ := s.adminCall(http.MethodPost, "/accounts", bad); resp.StatusCode != 422 {
				t.Errorf("account %s: %d", bad, resp.StatusCode)
			}
		}

		resp, body = s.adminCall(http.MethodPost, "/accounts/"+accID+"/applications",
			`{"name":"Booking engine","allowed_scopes":["catalog.lounges:read","catalog.fasttrack:read"],"sandbox":true}`)
		if resp.StatusCode != 201 || resp.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("create application: %d %s", resp.StatusCode, body)
		}
		app := mustJSON(t, body)
		creds := credentials{AccountID: accID, ClientID: app["client_id"].(string), ClientSecret: app["client_secret"].(string)}
		tok := s.mustToken(creds, "")
		if resp, _ := s.get("/v2/catalog/lounges?limit=1", tok, nil); resp.StatusCode != 200 {
			t.Fatalf("new application's token: %d", resp.StatusCode)
		}
		// The secret is never shown again.
		_, got := s.adminCall(http.MethodGet, "/applications/"+app["id"].(string), "")
		if strings.Contains(string(got), creds.ClientSecret) || strings.Contains(string(got), "client_secret\"") {
			t.Errorf("GET application shows the secret: %s", got)
		}
		for _, bad := range []string{`{"name":"x","allowed_scopes":[]}`, `{"name":"x","allowed_scopes":["identity.account:*"]}`, `{"name":"x","allowed_scopes":["esim:read"],"client_cert_sha256":"nope"}`} {
			if resp, _ := s.adminCall(http.MethodPost, "/accounts/"+accID+"/applications", bad); resp.StatusCode != 422 {
				t.Errorf("application %s: %d", bad, resp.StatusCode)
			}
		}
		if resp, _ := s.adminCall(http.MethodPost, "/accounts/00000000-0000-4000-8000-000000000000/applications", `{"name":"x","allowed_scopes":["esim:read"]}`); resp.StatusCode != 404 {
			t.Errorf("application of an unknown account: %d", resp.StatusCode)
		}

		// Rotation: the old secret stops working at once.
		resp, body = s.adminCall(http.MethodPost, "/applications/"+app["id"].(string)+"/rotate-secret", `{"grace_seconds":0}`)
		if resp.StatusCode != 200 {
			t.Fatalf("rotate: %d %s", resp.StatusCode, body)
		}
		rotated := creds
		rotated.ClientSecret = mustJSON(t, body)["client_secret"].(string)
		s.mustToken(rotated, "")
		if resp, _ := s.tokenCall(creds, ""); resp.StatusCode != 401 {
			t.Errorf("old secret after rotation: %d", resp.StatusCode)
		}

		// Suspension: at once on this replica.
		if resp, body := s.adminCall(http.MethodPatch, "/accounts/"+accID, `{"status":"suspended"}`); resp.StatusCode != 200 || mustJSON(t, body)["status"] != "suspended" {
			t.Fatalf("suspend: %d %s", resp.StatusCode, body)
		}
		if resp, _ := s.get("/v2/catalog/lounges?limit=1", tok, nil); resp.StatusCode != 401 {
			t.Errorf("token of a suspended account: %d", resp.StatusCode)
		}
		if resp, body := s.tokenCall(rotated, ""); resp.StatusCode != 400 || !strings.Contains(string(body), "invalid_grant") {
			t.Errorf("new token for a suspended account: %d %s", resp.StatusCode, body)
		}
		if resp, _ := s.adminCall(http.MethodPatch, "/accounts/"+accID, `{"status":"gone"}`); resp.StatusCode != 422 {
			t.Errorf("bad status: %d", resp.StatusCode)
		}
		if resp, _ := s.adminCall(http.MethodPatch, "/accounts/"+accID, `{"status":"active"}`); resp.StatusCode != 200 {
			t.Errorf("reactivate: %d", resp.StatusCode)
		}
		if resp, _ := s.get("/v2/catalog/lounges?limit=1", tok, nil); resp.StatusCode != 200 {
			t.Errorf("token after reactivation: %d", resp.StatusCode)
		}
		s.mustToken(rotated, "")

		// Lists.
		if _, body := s.adminCall(http.MethodGet, "/accounts?limit=500", ""); !strings.Contains(string(body), accID) {
			t.Errorf("account list lacks the account")
		}
		if _, body := s.adminCall(http.MethodGet, "/accounts/"+accID+"/applications", ""); !strings.Contains(string(body), `"total":1`) {
			t.Errorf("application list: %s", body)
		}

		// Delete: the client gets no more tokens.
		if resp, _ := s.adminCall(http.MethodDelete, "/applications/"+app["id"].(string), ""); resp.StatusCode != 204 {
			t.Errorf("delete: %d", resp.StatusCode)
		}
		if resp, _ := s.adminCall(http.MethodGet, "/applications/"+app["id"].(string), ""); resp.StatusCode != 404 {
			t.Errorf("deleted application: %d", resp.StatusCode)
		}
		if resp, _ := s.tokenCall(rotated, ""); resp.StatusCode != 401 {
			t.Errorf("token for a deleted application: %d", resp.StatusCode)
		}

		// Every write is in the audit log with the employee and the request id.
		resp, body = s.adminCall(http.MethodGet, "/audit-events?account_id="+accID+"&limit=50", "")
		var audit struct {
			Data []struct {
				Actor     string `json:"actor"`
				Action    string `json:"action"`
				RequestID string `json:"request_id"`
			} `json:"data"`
		}
		if err := json.Unmarshal(body, &audit); err != nil || resp.StatusCode != 200 {
			t.Fatalf("audit: %d %v", resp.StatusCode, err)
		}
		var actions []string
		for _, a := range audit.Data {
			actions = append(actions, a.Action)
		}
		want := "application.delete,account.update,account.update,application.rotate_secret,application.create,account.create"
		if strings.Join(actions, ",") != want {
			t.Errorf("audit actions %v, want %s", actions, want)
		}
		if !strings.Contains(string(body), `"actor":"employee-1"`) || strings.Contains(string(body), rotated.ClientSecret) {
			t.Errorf("audit body: %.500s", body)
		}

		// B2B tokens never reach the admin API.
		b2b := s.mustToken(s.mustBootstrap("partner", catalogScopes), "")
		if resp, _ := s.do(s.client, http.MethodGet, s.base+"/api/v1/admin/accounts", nil, map[string]string{"Authorization": "Bearer " + b2b}); resp.StatusCode != 403 {
			t.Errorf("B2B token on the admin API: %d", resp.StatusCode)
		}
	})
}

// TestAdminChangesReachOtherReplicas: an application or account changed through one
// replica applies on another within the documented bound (httpapi.ApplicationCacheTTL,
// one second), although that replica has cached the application; a new secret works
// there at once.
func TestAdminChangesReachOtherReplicas(t *testing.T) {
	t.Parallel()
	env := engines[1].env(t, nil)
	a := startServer(t, env)
	b := startServer(t, maps.Clone(env))
	creds := a.mustBootstrap("replicated", catalogScopes)
	tok := b.mustToken(creds, "") // b now caches the application
	_, body := a.adminCall(http.MethodGet, "/accounts/"+creds.AccountID+"/applications", "")
	appID := mustJSON(t, body)["data"].([]any)[0].(map[string]any)["id"].(string)

	// within waits up to three times the bound for call to answer want.
	within := func(what string, want int, call func() (*http.Response, []byte)) {
		t.Helper()
		deadline := time.Now().Add(3 * httpapi.ApplicationCacheTTL)
		for {
			resp, body := call()
			if resp.StatusCode == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: still %d %s after %v", what, resp.StatusCode, body, 3*httpapi.ApplicationCacheTTL)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	token := func(c credentials) func() (*http.Response, []byte) {
		return func() (*http.Response, []byte) { return b.tokenCall(c, "") }
	}

	resp, body := a.adminCall(http.MethodPost, "/applications/"+appID+"/rotate-secret", `{"grace_seconds":0}`)
	if resp.StatusCode != 200 {
		t.Fatalf("rotate: %d %s", resp.StatusCode, body)
	}
	rotated := creds
	rotated.ClientSecret = mustJSON(t, body)["client_secret"].(string)
	b.mustToken(rotated, "") // at once
	within("the old secret refused on the other replica", 401, token(creds))

	if resp, body := a.adminCall(http.MethodPatch, "/accounts/"+creds.AccountID, `{"status":"suspended"}`); resp.StatusCode != 200 {
		t.Fatalf("suspend: %d %s", resp.StatusCode, body)
	}
	within("a suspended account's token refused on the other replica", 401, func() (*http.Response, []byte) {
		return b.get("/v2/catalog/lounges?limit=1", tok, nil)
	})
	within("no new token for a suspended account on the other replica", 400, token(rotated))
	if resp, body := a.adminCall(http.MethodPatch, "/accounts/"+creds.AccountID, `{"status":"active"}`); resp.StatusCode != 200 {
		t.Fatalf("reactivate: %d %s", resp.StatusCode, body)
	}
	within("tokens again after reactivation", 200, token(rotated))

	if resp, _ := a.adminCall(http.MethodDelete, "/applications/"+appID, ""); resp.StatusCode != 204 {
		t.Fatalf("delete: %d", resp.StatusCode)
	}
	within("a deleted application refused on the other replica", 401, token(rotated))
}
