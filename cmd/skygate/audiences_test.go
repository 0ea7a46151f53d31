package main

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"golang.org/x/oauth2/clientcredentials"
)

// TestApplicationAudiences: an application created with audiences shows them, and its
// tokens (x/oauth2 client, claims read with go-jose) carry aud = the service's audience
// then those, and still work on the service's routes; an application without
// audiences keeps aud a single string. A bad audience is 422 and creates nothing.
func TestApplicationAudiences(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		resp, body := s.adminCall(http.MethodPost, "/accounts", `{"name":"Audience Travel"}`)
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("create account: %d %s", resp.StatusCode, body)
		}
		accID := mustJSON(t, body)["id"].(string)
		apps := "/accounts/" + accID + "/applications"

		resp, body = s.adminCall(http.MethodPost, apps, `{"name":"bad","allowed_scopes":["catalog.lounges:read"],"audiences":["https://ok.example","not a uri"]}`)
		if p := problemOf(t, resp, body); resp.StatusCode != http.StatusUnprocessableEntity || !slices.ContainsFunc(p["errors"].([]any), func(e any) bool {
			return e.(map[string]any)["field"] == "audiences[1]"
		}) {
			t.Errorf("bad audience: %d %s", resp.StatusCode, body)
		}
		if _, list := s.adminCall(http.MethodGet, apps, ""); mustJSON(t, list)["pagination"].(map[string]any)["total"] != float64(0) {
			t.Errorf("a refused application was created: %s", list)
		}

		token := func(body string) (*accessClaims, string) {
			t.Helper()
			resp, created := s.adminCall(http.MethodPost, apps, body)
			if resp.StatusCode != http.StatusCreated {
				t.Fatalf("create application: %d %s", resp.StatusCode, created)
			}
			app := mustJSON(t, created)
			cfg := clientcredentials.Config{ClientID: app["client_id"].(string), ClientSecret: app["client_secret"].(string),
				TokenURL: s.base + "/oauth/v2/token"}
			tok, err := cfg.Token(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if resp, body := s.get("/v2/catalog/lounges?limit=1", tok.AccessToken, nil); resp.StatusCode != http.StatusOK {
				t.Errorf("catalog with the token: %d %s", resp.StatusCode, body)
			}
			return verifiedClaims(t, s, tok.AccessToken), string(created)
		}
		claims, created := token(`{"name":"multi","allowed_scopes":["catalog.lounges:read"],"audiences":["https://billing.example.com/api","urn:example:ledger","https://billing.example.com/api"]}`)
		want := []any{s.env["SKYGATE_PUBLIC_URL"], "https://billing.example.com/api", "urn:example:ledger"}
		if got, ok := claims.Aud.([]any); !ok || !slices.Equal(got, want) {
			t.Errorf("aud %v, want %v (application %s)", claims.Aud, want, created)
		}
		if claims, _ := token(`{"name":"single","allowed_scopes":["catalog.lounges:read"]}`); claims.Aud != s.env["SKYGATE_PUBLIC_URL"] {
			t.Errorf("aud %v, want the one string %q", claims.Aud, s.env["SKYGATE_PUBLIC_URL"])
		}
	})
}
