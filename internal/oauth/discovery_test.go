package oauth_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/oauth"
)

func TestDiscovery(t *testing.T) {
	t.Parallel()
	for _, publicURL := range []string{"https://api.skygate.test", "https://api.skygate.test/"} {
		for _, path := range []string{oauth.OpenIDConfigPath, oauth.ServerMetadataPath} {
			w := httptest.NewRecorder()
			oauth.DiscoveryHandler(publicURL).ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
			if w.Code != 200 || w.Header().Get("Content-Type") != "application/json" {
				t.Fatalf("%s: %d %v", path, w.Code, w.Header())
			}
			var m map[string]any
			if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil {
				t.Fatal(err)
			}
			want := map[string]any{
				"issuer":                 "https://api.skygate.test",
				"token_endpoint":         "https://api.skygate.test/oauth/v2/token",
				"jwks_uri":               "https://api.skygate.test/.well-known/jwks.json",
				"authorization_endpoint": "https://api.skygate.test/api/v1/auth/idp/login",
			}
			for k, v := range want {
				if m[k] != v {
					t.Errorf("%s = %v, want %v", k, m[k], v)
				}
			}
			if m["tls_client_certificate_bound_access_tokens"] != true { // RFC 8705 §3.3
				t.Errorf("tls_client_certificate_bound_access_tokens = %v, want true", m["tls_client_certificate_bound_access_tokens"])
			}
			lists := map[string][]string{
				"grant_types_supported":                 {"client_credentials", "authorization_code"},
				"token_endpoint_auth_methods_supported": {"client_secret_basic", "client_secret_post", "private_key_jwt", "tls_client_auth", "none"},
				"code_challenge_methods_supported":      {"S256"},
				"scopes_supported":                      skygate.AllScopes,
				"response_types_supported":              {"code"},
				"id_token_signing_alg_values_supported": {"ES256"},
				"subject_types_supported":               {"public"},
			}
			lists["token_endpoint_auth_signing_alg_values_supported"] = []string{"ES256", "RS256", "EdDSA"}
			for k, v := range lists {
				var got []string
				for _, s := range m[k].([]any) {
					got = append(got, s.(string))
				}
				if !slices.Equal(got, v) {
					t.Errorf("%s = %v, want %v", k, got, v)
				}
			}
		}
	}
}

func TestJWKSHandler(t *testing.T) {
	t.Parallel()
	f := setup(t)
	MustRotate(t, f.keys, 0)
	w := httptest.NewRecorder()
	f.keys.JWKSHandler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, oauth.JWKSPath, nil))
	if w.Code != 200 || w.Header().Get("Cache-Control") != "public, max-age=300" ||
		w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("%d %v", w.Code, w.Header())
	}
	var raw struct {
		Keys []map[string]string `json:"keys"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	if len(raw.Keys) != 2 {
		t.Fatalf("%d keys", len(raw.Keys))
	}
	for _, k := range raw.Keys {
		if len(k) != 7 || k["kty"] != "EC" || k["crv"] != "P-256" || k["use"] != "sig" || k["alg"] != "ES256" ||
			len(k["x"]) != 43 || len(k["y"]) != 43 || len(k["kid"]) != 43 {
			t.Errorf("JWK %v", k)
		}
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(w.Body.Bytes(), &set); err != nil {
		t.Fatal(err)
	}
	if len(set.Key(f.keys.CurrentKID())) != 1 {
		t.Error("current kid missing")
	}
}

func TestJWKSEmpty(t *testing.T) {
	t.Parallel()
	m := oauth.NewKeyManager(newMemKeyStore(), MustBox(t), nil, oauth.KeyManagerOptions{})
	if got := string(m.JWKS()); got != `{"keys":[]}` {
		t.Fatalf("JWKS = %s", got)
	}
}
