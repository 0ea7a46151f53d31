package oauth_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/skygate/skygate/internal/oauth"
)

func x5t(s string) string {
	sum := sha256.Sum256([]byte(s))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// postWithCert sends a token request with body, carrying the client certificate
// thumbprint (none when "") and, when basic is given, HTTP Basic of its id and secret.
func (f *fixture) postWithCert(tb testing.TB, body, thumbprint string, basic ...string) *httptest.ResponseRecorder {
	tb.Helper()
	r := httptest.NewRequest(http.MethodPost, oauth.TokenPath, strings.NewReader(body))
	r.Header.Set("Content-Type", formType)
	if basic != nil {
		r.SetBasicAuth(basic[0], basic[1])
	}
	if thumbprint != "" {
		r = r.WithContext(oauth.WithClientCertificate(r.Context(), thumbprint))
	}
	w := httptest.NewRecorder()
	f.handler.ServeHTTP(w, r)
	return w
}

// TestTLSClientAuth: a client_id without a secret authenticates by the certificate the
// application is bound to (RFC 8705 §2.1), and its token is bound to it; another
// certificate, none, an unbound application and an unknown client are invalid_client.
func TestTLSClientAuth(t *testing.T) {
	t.Parallel()
	f := setup(t)
	bound, _ := f.MustApplication(t, appOptions{CertSHA256: x5t("partner")})
	unbound, _ := f.MustApplication(t, appOptions{})
	grant := func(id string) string { return form("grant_type", "client_credentials", "client_id", id) }

	w := f.postWithCert(t, grant(bound), x5t("partner"))
	var tr oauth.TokenResponse
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &tr) != nil {
		t.Fatalf("bound certificate: %d %s", w.Code, w.Body)
	}
	if c := MustVerify(t, f.verifier, tr.AccessToken); c.CertThumbprint != x5t("partner") || c.ClientID != bound {
		t.Errorf("claims %+v: want cnf of the certificate and client_id %s", c, bound)
	}

	for _, tc := range []struct {
		name, body, cert string
		basic            []string
	}{
		{"another certificate", grant(bound), x5t("someone else"), nil},
		{"no certificate", grant(bound), "", nil},
		{"unbound application", grant(unbound), x5t("partner"), nil},
		{"unknown client", grant("client-unknown"), x5t("partner"), nil},
		{"implausible client_id", grant("client\x00"), x5t("partner"), nil},
		// tls_client_auth sends client_id in the body; Basic is client_secret_basic.
		{"HTTP Basic with an empty secret", form("grant_type", "client_credentials"), x5t("partner"), []string{bound, ""}},
	} {
		w := f.postWithCert(t, tc.body, tc.cert, tc.basic...)
		var e map[string]any
		if w.Code != http.StatusUnauthorized || json.Unmarshal(w.Body.Bytes(), &e) != nil || e["error"] != "invalid_client" {
			t.Errorf("%s: %d %s, want 401 invalid_client", tc.name, w.Code, w.Body)
		}
	}
}

// TestTLSClientAuthRebinding: a binding changed in the store after the application was
// cached works at once (the cached one is read again on a mismatch), and the old
// certificate no longer authenticates once the cache has the new binding.
func TestTLSClientAuthRebinding(t *testing.T) {
	t.Parallel()
	f := setup(t)
	id, _ := f.MustApplication(t, appOptions{CertSHA256: x5t("old")})
	body := form("grant_type", "client_credentials", "client_id", id)
	if w := f.postWithCert(t, body, x5t("old")); w.Code != http.StatusOK {
		t.Fatalf("old certificate: %d %s", w.Code, w.Body)
	}
	app, _, err := f.apps.ApplicationByClientID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.apps.SetApplicationCertificate(context.Background(), app.AccountID, app.ID, x5t("new"), f.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if w := f.postWithCert(t, body, x5t("new")); w.Code != http.StatusOK {
		t.Errorf("new certificate: %d %s", w.Code, w.Body)
	}
	if w := f.postWithCert(t, body, x5t("old")); w.Code != http.StatusUnauthorized {
		t.Errorf("old certificate after the rebinding: %d %s", w.Code, w.Body)
	}
}

// TestTokenAudiences: the token of an application with audiences lists the service's
// audience first, then those without repeats (RFC 9068 §3), as a JSON array, and the
// verifier accepts it; without audiences aud stays one string.
func TestTokenAudiences(t *testing.T) {
	t.Parallel()
	f := setup(t)
	extra := []string{"https://billing.example.com", testIssuer, "urn:example:ledger"}
	withAud, secret := f.MustApplication(t, appOptions{Audiences: extra})
	plain, plainSecret := f.MustApplication(t, appOptions{})
	for _, tc := range []struct {
		id, secret string
		want       any
	}{
		{withAud, secret, []any{testIssuer, "https://billing.example.com", "urn:example:ledger"}},
		{plain, plainSecret, testIssuer},
	} {
		w := f.post(t, tokenCall{contentType: formType, body: form("grant_type", "client_credentials"), basic: []string{tc.id, tc.secret}})
		var tr oauth.TokenResponse
		if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &tr) != nil {
			t.Fatalf("%s: %d %s", tc.id, w.Code, w.Body)
		}
		_, payload, _ := tokenParts(t, tr.AccessToken)
		got, _ := json.Marshal(payload["aud"])
		want, _ := json.Marshal(tc.want)
		if string(got) != string(want) {
			t.Errorf("%s: aud %s, want %s", tc.id, got, want)
		}
		if c := MustVerify(t, f.verifier, tr.AccessToken); !slices.Contains(c.Audience, testIssuer) {
			t.Errorf("%s: verified audience %v", tc.id, c.Audience)
		}
		if payload["scope"] != strings.Join(toStrings(payload["scopes"]), " ") {
			t.Errorf("%s: scope %v, scopes %v", tc.id, payload["scope"], payload["scopes"])
		}
	}
}

func toStrings(v any) []string {
	var out []string
	for _, s := range v.([]any) {
		out = append(out, s.(string))
	}
	return out
}
