package main

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"golang.org/x/oauth2/clientcredentials"
)

// TestPatchApplicationAudiences: PATCH replaces an application's audiences and the
// next token of its client (x/oauth2, claims read with go-jose) carries them in aud;
// null removes them, so aud is the service's audience alone again; a bad value is
// 422 naming the field and changes nothing; each change is one application.update
// record holding the patch.
func TestPatchApplicationAudiences(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		resp, body := s.adminCall(http.MethodPost, "/accounts", `{"name":"Audience Patch Travel"}`)
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("create account: %d %s", resp.StatusCode, body)
		}
		accID := mustJSON(t, body)["id"].(string)
		resp, body = s.adminCall(http.MethodPost, "/accounts/"+accID+"/applications",
			`{"name":"aud","allowed_scopes":["catalog.lounges:read"],"audiences":["https://old.example.com"]}`)
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("create application: %d %s", resp.StatusCode, body)
		}
		app := mustJSON(t, body)
		path := "/applications/" + app["id"].(string)
		cfg := clientcredentials.Config{ClientID: app["client_id"].(string), ClientSecret: app["client_secret"].(string),
			TokenURL: s.base + "/oauth/v2/token"}
		public := s.env["SKYGATE_PUBLIC_URL"]
		wantAud := func(what string, want any) {
			t.Helper()
			tok, err := cfg.Token(context.Background())
			if err != nil {
				t.Fatalf("%s: token: %v", what, err)
			}
			claims := verifiedClaims(t, s, tok.AccessToken)
			got, ok := claims.Aud.([]any)
			if w, many := want.([]any); many && (!ok || !slices.Equal(got, w)) || !many && claims.Aud != want {
				t.Errorf("%s: aud %v, want %v", what, claims.Aud, want)
			}
			if resp, body := s.get("/v2/catalog/lounges?limit=1", tok.AccessToken, nil); resp.StatusCode != http.StatusOK {
				t.Errorf("%s: catalog with the token: %d %s", what, resp.StatusCode, body)
			}
		}
		wantAud("before", []any{public, "https://old.example.com"})

		resp, body = s.adminCall(http.MethodPatch, path, `{"audiences":["https://billing.example.com/api","urn:example:ledger","urn:example:ledger"]}`)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("patch audiences: %d %s", resp.StatusCode, body)
		}
		if got := mustJSON(t, body)["audiences"]; !slices.Equal(got.([]any), []any{"https://billing.example.com/api", "urn:example:ledger"}) {
			t.Errorf("answer's audiences %v", got)
		}
		wantAud("after the patch", []any{public, "https://billing.example.com/api", "urn:example:ledger"})

		for _, bad := range []struct{ body, field string }{
			{`{"audiences":"https://a.example"}`, "audiences"},
			{`{"audiences":["https://ok.example","not a uri"]}`, "audiences[1]"},
			{`{"audiences":["https://ok.example"],"jwks":{"keys":[{"kty":"EC","kid":"x"}]}}`, "jwks"},
		} {
			resp, body := s.adminCall(http.MethodPatch, path, bad.body)
			if p := problemOf(t, resp, body); resp.StatusCode != http.StatusUnprocessableEntity || !slices.ContainsFunc(p["errors"].([]any), func(e any) bool {
				return e.(map[string]any)["field"] == bad.field
			}) {
				t.Errorf("patch %s: %d %s, want 422 naming %s", bad.body, resp.StatusCode, body, bad.field)
			}
		}
		wantAud("after refused patches", []any{public, "https://billing.example.com/api", "urn:example:ledger"})

		if resp, body = s.adminCall(http.MethodPatch, path, `{"audiences":null}`); resp.StatusCode != http.StatusOK {
			t.Fatalf("patch audiences null: %d %s", resp.StatusCode, body)
		}
		if got := mustJSON(t, body)["audiences"]; len(got.([]any)) != 0 {
			t.Errorf("answer's audiences after null: %v", got)
		}
		wantAud("after null", public)

		_, page := s.adminCall(http.MethodGet, "/audit-events?account_id="+accID+"&action=application.update&limit=50", "")
		var patches []string
		for _, it := range mustJSON(t, page)["data"].([]any) {
			ev := it.(map[string]any)
			if ev["action"] == "application.update" {
				d, _ := ev["details"].(map[string]any)
				b, _ := json.Marshal(d["audiences"])
				patches = append(patches, string(b))
			}
		}
		slices.Sort(patches)
		if want := []string{`["https://billing.example.com/api","urn:example:ledger","urn:example:ledger"]`, "null"}; !slices.Equal(patches, want) {
			t.Errorf("application.update records' audiences %q, want %q", patches, want)
		}
	})
}

// audiencesPatchHostile returns hostile PATCH bodies of an application's audiences,
// each refused, and a check that the application's audiences are as they were.
func (s *testServer) audiencesPatchHostile(t *testing.T, accountID, admin string) ([]hostileCase, func()) {
	t.Helper()
	resp, body := s.adminCall(http.MethodPost, "/accounts/"+accountID+"/applications",
		`{"name":"hostile audiences","allowed_scopes":["catalog.lounges:read"],"audiences":["https://kept.example.com"]}`)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create application: %d %s", resp.StatusCode, body)
	}
	path := "/applications/" + mustJSON(t, body)["id"].(string)
	adminJSON := map[string]string{"Authorization": "Bearer " + admin, "Content-Type": "application/json"}
	patch := func(name, body string, want int) hostileCase {
		return hostileCase{name: "admin PATCH application " + name, method: "PATCH", path: "/api/v1/admin" + path, header: adminJSON, body: body, want: want}
	}
	cases := []hostileCase{
		patch("audiences a string", `{"audiences":"https://a.example"}`, 422),
		patch("audiences an object", `{"audiences":{"0":"https://a.example"}}`, 422),
		patch("audiences true", `{"audiences":true}`, 422),
		patch("audience a number", `{"audiences":[1]}`, 422),
		patch("audience nested", `{"audiences":[["https://a.example"]]}`, 422),
		patch("audience null", `{"audiences":[null]}`, 422),
		patch("audience with NUL", `{"audiences":["https://api.example.com/\u0000"]}`, 422),
		patch("audience relative", `{"audiences":["/api"]}`, 422),
		patch("audience with a fragment", `{"audiences":["https://api.example.com/#x"]}`, 422),
		patch("audience of 64 KiB", `{"audiences":["https://a.example/`+strings.Repeat("a", 64<<10)+`"]}`, 422),
		patch("11 audiences", `{"audiences":[`+strings.TrimSuffix(strings.Repeat(`"https://a.example",`, 11), ",")+`]}`, 422),
		patch("10k audiences", `{"audiences":[`+strings.TrimSuffix(strings.Repeat(`"https://a.example",`, 10000), ",")+`]}`, 0),
		patch("audiences twice", `{"audiences":["https://a.example"],"audiences":null}`, 400),
		patch("Audiences in another case", `{"Audiences":["https://a.example"]}`, 400),
		patch("audience with invalid UTF-8", "{\"audiences\":[\"https://a.example/\xff\"]}", 400),
	}
	return cases, func() {
		t.Helper()
		resp, body := s.adminCall(http.MethodGet, path, "")
		if got := mustJSON(t, body)["audiences"]; resp.StatusCode != http.StatusOK || !slices.Equal(got.([]any), []any{"https://kept.example.com"}) {
			t.Errorf("audiences after hostile patches: %d %s", resp.StatusCode, body)
		}
	}
}
