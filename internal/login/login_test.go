package login

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"github.com/skygate/skygate/internal/oauth"
)

// noFollow sends one request without following redirects, with the env's browser
// cookies.
func (e *env) noFollow(method, u string) *http.Response {
	e.t.Helper()
	c := *e.browser.client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	req, err := http.NewRequest(method, u, nil)
	mustNoError(e.t, err)
	resp, err := c.Do(req)
	mustNoError(e.t, err)
	return resp
}

// wantProblem checks a 400 problem+json answer that redirects nowhere.
func wantProblem(t *testing.T, resp *http.Response) {
	t.Helper()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Location") != "" ||
		resp.Header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("status %d, Location %q, body %s; want a 400 problem and no redirect",
			resp.StatusCode, resp.Header.Get("Location"), body)
	}
	var p map[string]any
	if json.Unmarshal(body, &p) != nil || p["code"] != "BadRequest" {
		t.Fatalf("problem %s", body)
	}
}

// wantSPAError checks a redirect to the SPA carrying error and the SPA's state.
func wantSPAError(t *testing.T, resp *http.Response, code, spaState string) {
	t.Helper()
	q := spaLanding(t, resp)
	if q.Get("error") != code || q.Get("error_description") == "" || q.Get("state") != spaState || q.Has("code") {
		t.Fatalf("SPA redirect query %v; want error=%s and state %q", q, code, spaState)
	}
}

func TestLoginRedirectURIWhitelist(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	_, challenge := pkce()
	tests := []struct {
		name string
		uri  string
	}{
		{"missing", ""},
		{"trailing slash", spaRedirect + "/"},
		{"different port", "https://console.test:8443/admin/callback"},
		{"default port spelled out", "https://console.test:443/admin/callback"},
		{"extra query", spaRedirect + "?next=/"},
		{"empty query", spaRedirect + "?"},
		{"fragment", spaRedirect + "#x"},
		{"host case", "https://CONSOLE.test/admin/callback"},
		{"path case", "https://console.test/Admin/callback"},
		{"scheme", "http://console.test/admin/callback"},
		{"percent-encoded path", "https://console.test/admin/%63allback"},
		{"other host", "https://evil.example/admin/callback"},
		{"host suffix", "https://console.test.evil.example/admin/callback"},
		{"user info", "https://console.test@evil.example/admin/callback"},
		{"scheme-relative", "//console.test/admin/callback"},
		{"path only", "/admin/callback"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wantProblem(t, e.noFollow(http.MethodGet, e.loginURL(tt.uri, challenge, "s")))
		})
	}
	t.Run("repeated", func(t *testing.T) {
		t.Parallel()
		u := e.loginURL(spaRedirect, challenge, "s") + "&redirect_uri=" + url.QueryEscape(spaRedirect)
		wantProblem(t, e.noFollow(http.MethodGet, u))
	})
}

func TestLoginErrorsRedirectToTheSPA(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	_, challenge := pkce()
	base := func() url.Values {
		return url.Values{"redirect_uri": {spaRedirect}, "code_challenge": {challenge},
			"code_challenge_method": {"S256"}, "state": {"st"}}
	}
	tests := []struct {
		name  string
		edit  func(url.Values)
		state string // expected echo
	}{
		{"method missing", func(q url.Values) { q.Del("code_challenge_method") }, "st"},
		{"method plain", func(q url.Values) { q.Set("code_challenge_method", "plain") }, "st"},
		{"method lower case", func(q url.Values) { q.Set("code_challenge_method", "s256") }, "st"},
		{"challenge missing", func(q url.Values) { q.Del("code_challenge") }, "st"},
		{"challenge too short", func(q url.Values) { q.Set("code_challenge", challenge[:42]) }, "st"},
		{"challenge with padding", func(q url.Values) { q.Set("code_challenge", challenge+"=") }, "st"},
		{"challenge repeated", func(q url.Values) { q.Add("code_challenge", challenge) }, "st"},
		{"state too long", func(q url.Values) { q.Set("state", strings.Repeat("s", MaxSPAState+1)) }, ""},
		{"state with a control character", func(q url.Values) { q.Set("state", "a\nb") }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			q := base()
			tt.edit(q)
			resp := e.noFollow(http.MethodGet, e.base+oauth.AuthorizationPath+"?"+q.Encode())
			wantSPAError(t, resp, "invalid_request", tt.state)
		})
	}
}

func TestLoginUnreachableProvider(t *testing.T) {
	t.Parallel()
	e := setup(t, options{issuer: "http://127.0.0.1:1/nothing", clientID: "c"})
	_, challenge := pkce()
	wantSPAError(t, e.noFollow(http.MethodGet, e.loginURL(spaRedirect, challenge, "s")), "temporarily_unavailable", "s")
}

// TestLoginRedirectsToTheProvider checks the authorization request sent upstream and
// the cookie that binds the login to the browser.
func TestLoginRedirectsToTheProvider(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	_, challenge := pkce()
	resp := e.noFollow(http.MethodGet, e.loginURL(spaRedirect, challenge, "spa-xyz"))
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("status %d Cache-Control %q", resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	mustNoError(t, err)
	if got := loc.Scheme + "://" + loc.Host + loc.Path; got != e.idp.Issuer()+"/authorize" {
		t.Fatalf("redirected to %s", got)
	}
	q := loc.Query()
	want := map[string]string{
		"client_id": e.idp.ClientID(), "redirect_uri": e.base + oauth.AuthorizationCallbackPath,
		"response_type": "code", "scope": "openid profile email groups", "code_challenge_method": "S256",
	}
	for k, v := range want {
		if q.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, q.Get(k), v)
		}
	}
	// The upstream challenge is Skygate's own, not the SPA's.
	if q.Get("code_challenge") == challenge || !validChallenge(q.Get("code_challenge")) {
		t.Errorf("upstream code_challenge %q", q.Get("code_challenge"))
	}

	cookies := resp.Cookies()
	i := slices.IndexFunc(cookies, func(c *http.Cookie) bool { return c.Name == CookieName })
	if i < 0 {
		t.Fatal("no binding cookie")
	}
	c := cookies[i]
	if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/api/v1/auth/idp" || c.MaxAge != 600 || c.Secure {
		t.Errorf("cookie %+v", c)
	}
	st, err := e.handler.keys.verifyState(q.Get("state"), e.clock.Now())
	mustNoError(t, err)
	if st.RedirectURI != spaRedirect || st.Challenge != challenge || st.SPAState != "spa-xyz" ||
		st.Nonce != q.Get("nonce") || st.Binding != bindingHash(c.Value) ||
		oauth2.S256ChallengeFromVerifier(e.handler.keys.upstreamVerifier(st.Nonce)) != q.Get("code_challenge") {
		t.Fatalf("state %+v does not match the request", st)
	}

	// A second login in the same browser keeps the binding, so two tabs both work.
	again := e.noFollow(http.MethodGet, e.loginURL(spaRedirect, challenge, "other-tab"))
	for _, c2 := range again.Cookies() {
		if c2.Name == CookieName && c2.Value != c.Value {
			t.Error("a second login replaced the browser binding")
		}
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	t.Parallel()
	good := func() Config {
		return Config{
			Issuer: "https://idp.example", ClientID: "c", CallbackURL: "https://skygate.test/api/v1/auth/idp/callback",
			RedirectURIs: []string{spaRedirect}, StateKey: make([]byte, 32), Codes: &memCodes{},
		}
	}
	if _, err := New(good()); err != nil {
		t.Fatalf("good config: %v", err)
	}
	tests := []struct {
		name string
		edit func(*Config)
	}{
		{"relative issuer", func(c *Config) { c.Issuer = "/idp" }},
		{"no client id", func(c *Config) { c.ClientID = "" }},
		{"relative callback", func(c *Config) { c.CallbackURL = "/api/v1/auth/idp/callback" }},
		{"no redirect URIs", func(c *Config) { c.RedirectURIs = nil }},
		{"redirect URI with fragment", func(c *Config) { c.RedirectURIs = []string{spaRedirect + "#f"} }},
		{"redirect URI not http", func(c *Config) { c.RedirectURIs = []string{"javascript:alert(1)"} }},
		{"short state key", func(c *Config) { c.StateKey = make([]byte, 16) }},
		{"no store", func(c *Config) { c.Codes = nil }},
	}
	for _, tt := range tests {
		c := good()
		tt.edit(&c)
		if _, err := New(c); err == nil {
			t.Errorf("%s: New succeeded", tt.name)
		}
	}
}
