package devidp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

const (
	testIssuer   = "http://skygate.test/dev/idp"
	testCallback = "http://skygate.test/api/v1/auth/idp/callback"
)

// testClock is a settable clock.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// fixture is a provider reached only in-process, the way skygate reaches it, and a
// go-oidc client of it.
type fixture struct {
	p      *Provider
	clock  *testClock
	ctx    context.Context // carries the in-process client for go-oidc and x/oauth2
	oauth  *oauth2.Config
	oidc   *oidc.Provider
	verify *oidc.IDTokenVerifier
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{clock: &testClock{now: time.Now()}}
	p, err := New(Config{Issuer: testIssuer, RedirectURI: testCallback, Clock: f.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	f.p = p
	f.ctx = oidc.ClientContext(t.Context(), p.HTTPClient(nil))
	// Discovery, JWKS, token and userinfo all go through go-oidc and x/oauth2: the
	// provider must be correct enough for independent clients.
	if f.oidc, err = oidc.NewProvider(f.ctx, testIssuer); err != nil {
		t.Fatalf("go-oidc discovery: %v", err)
	}
	f.verify = f.oidc.Verifier(&oidc.Config{ClientID: p.ClientID(), Now: f.clock.Now})
	f.oauth = &oauth2.Config{ClientID: p.ClientID(), ClientSecret: p.ClientSecret(), Endpoint: f.oidc.Endpoint(),
		RedirectURL: testCallback, Scopes: []string{oidc.ScopeOpenID, "profile", "email", "groups"}}
	return f
}

// serve sends a request to the provider's handler.
func (f *fixture) serve(method, target string, form url.Values) *httptest.ResponseRecorder {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req := httptest.NewRequest(method, target, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	rec := httptest.NewRecorder()
	f.p.Handler().ServeHTTP(rec, req)
	return rec
}

// authorize signs in with form (the login page's fields) and returns the redirect.
func (f *fixture) authorize(t *testing.T, authURL string, form url.Values) *url.URL {
	t.Helper()
	u, _ := url.Parse(authURL)
	for k, vs := range u.Query() {
		form[k] = vs
	}
	rec := f.serve(http.MethodPost, "/dev/idp/authorize", form)
	if rec.Code != http.StatusFound {
		t.Fatalf("authorize: %d %s", rec.Code, rec.Body)
	}
	loc, _ := url.Parse(rec.Header().Get("Location"))
	return loc
}

func TestFlowWithGoOIDC(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	verifier := oauth2.GenerateVerifier()
	authURL := f.oauth.AuthCodeURL("st", oidc.Nonce("n-1"), oauth2.S256ChallengeOption(verifier))

	page := f.serve(http.MethodGet, strings.TrimPrefix(authURL, "http://skygate.test"), nil)
	if page.Code != 200 || !strings.Contains(page.Body.String(), "Alice Ops") ||
		!strings.Contains(page.Header().Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Fatalf("login page: %d %v", page.Code, page.Header())
	}
	loc := f.authorize(t, authURL, url.Values{"employee": {"bob"}})
	if loc.Query().Get("state") != "st" || !strings.HasPrefix(loc.String(), testCallback+"?") {
		t.Fatalf("redirect %s", loc)
	}
	code := loc.Query().Get("code")

	tok, err := f.oauth.Exchange(f.ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	idt, err := f.verify.Verify(f.ctx, tok.Extra("id_token").(string))
	if err != nil {
		t.Fatalf("go-oidc rejects the ID token: %v", err)
	}
	if idt.Nonce != "n-1" || idt.Subject != "dev-bob" || idt.VerifyAccessToken(tok.AccessToken) != nil {
		t.Fatalf("ID token nonce %q sub %q", idt.Nonce, idt.Subject)
	}
	info, err := f.oidc.UserInfo(f.ctx, oauth2.StaticTokenSource(tok))
	if err != nil {
		t.Fatal(err)
	}
	var claims struct {
		Name   string   `json:"name"`
		Groups []string `json:"groups"`
	}
	if err := info.Claims(&claims); err != nil || info.Subject != "dev-bob" || info.Email != "bob@dev.skygate.invalid" ||
		claims.Name != "Bob Audit" || !slices.Equal(claims.Groups, []string{"grp-audit"}) {
		t.Fatalf("userinfo %+v %+v %v", info, claims, err)
	}

	if _, err := f.oauth.Exchange(f.ctx, code, oauth2.VerifierOption(verifier)); err == nil {
		t.Fatal("a code worked twice")
	}
	f.clock.Add(AccessTokenTTL)
	if _, err := f.oidc.UserInfo(f.ctx, oauth2.StaticTokenSource(tok)); err == nil {
		t.Fatal("userinfo accepted an expired access token")
	}
}

func TestTokenErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// edit changes the token request; advance moves the clock before it.
		edit    func(f *fixture, form url.Values)
		advance time.Duration
		want    string
	}{
		{"wrong verifier", func(_ *fixture, v url.Values) { v.Set("code_verifier", oauth2.GenerateVerifier()) }, 0, "invalid_grant"},
		{"no verifier", func(_ *fixture, v url.Values) { v.Del("code_verifier") }, 0, "invalid_grant"},
		{"other redirect_uri", func(_ *fixture, v url.Values) { v.Set("redirect_uri", testCallback+"/") }, 0, "invalid_grant"},
		{"expired code", nil, CodeTTL, "invalid_grant"},
		{"wrong secret", func(_ *fixture, v url.Values) { v.Set("client_secret", "nope") }, 0, "invalid_client"},
		{"refresh grant", func(_ *fixture, v url.Values) { v.Set("grant_type", "refresh_token") }, 0, "unsupported_grant_type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			verifier := oauth2.GenerateVerifier()
			loc := f.authorize(t, f.oauth.AuthCodeURL("st", oauth2.S256ChallengeOption(verifier)), url.Values{"employee": {"alice"}})
			form := url.Values{"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")},
				"redirect_uri": {testCallback}, "code_verifier": {verifier},
				"client_id": {f.p.ClientID()}, "client_secret": {f.p.ClientSecret()}}
			if tt.edit != nil {
				tt.edit(f, form)
			}
			f.clock.Add(tt.advance)
			rec := f.serve(http.MethodPost, "/dev/idp/token", form)
			var body map[string]string
			json.Unmarshal(rec.Body.Bytes(), &body)
			if rec.Code < 400 || body["error"] != tt.want {
				t.Fatalf("%d %v, want %s", rec.Code, body, tt.want)
			}
		})
	}
}

func TestAuthorizeErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	good := func() url.Values {
		return url.Values{"client_id": {f.p.ClientID()}, "redirect_uri": {testCallback}, "response_type": {"code"},
			"scope": {"openid email"}, "state": {"st"}}
	}
	tests := []struct {
		name     string
		edit     func(url.Values)
		status   int
		redirect string // error= of the redirect, when the answer is one
	}{
		{"unknown client", func(v url.Values) { v.Set("client_id", "x") }, 400, ""},
		{"unregistered redirect", func(v url.Values) { v.Set("redirect_uri", "https://evil.example/cb") }, 400, ""},
		{"token response type", func(v url.Values) { v.Set("response_type", "token") }, 302, "unsupported_response_type"},
		{"no openid scope", func(v url.Values) { v.Set("scope", "email") }, 302, "invalid_scope"},
		{"plain PKCE", func(v url.Values) {
			v.Set("code_challenge_method", "plain")
			v.Set("code_challenge", strings.Repeat("a", 43))
		}, 302, "invalid_request"},
		{"challenge without method", func(v url.Values) { v.Set("code_challenge", strings.Repeat("a", 43)) }, 302, "invalid_request"},
		{"bad custom username", func(v url.Values) { v.Set("username", "Bad Name") }, 400, ""},
		{"unknown preset", func(v url.Values) { v.Set("employee", "mallory") }, 400, ""},
		{"cancel", func(v url.Values) { v.Set("action", "cancel") }, 302, "access_denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			form := good()
			tt.edit(form)
			rec := f.serve(http.MethodPost, "/dev/idp/authorize", form)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.status, rec.Body)
			}
			if tt.redirect != "" {
				loc, _ := url.Parse(rec.Header().Get("Location"))
				if loc.Query().Get("error") != tt.redirect || loc.Query().Get("state") != "st" {
					t.Fatalf("redirect %s, want error=%s", loc, tt.redirect)
				}
			}
		})
	}
}

func TestCustomEmployee(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	loc := f.authorize(t, f.oauth.AuthCodeURL("st"), url.Values{
		"username": {"dave"}, "group": {"grp-ops", "grp-dev"}, "extra_groups": {"team-a, team-b grp-ops"},
	})
	tok, err := f.oauth.Exchange(f.ctx, loc.Query().Get("code"))
	if err != nil {
		t.Fatal(err)
	}
	idt, err := f.verify.Verify(f.ctx, tok.Extra("id_token").(string))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Email  string   `json:"email"`
		Groups []string `json:"groups"`
	}
	idt.Claims(&c)
	if idt.Subject != "dev-dave" || c.Email != "dave@dev.skygate.invalid" ||
		!slices.Equal(c.Groups, []string{"grp-ops", "grp-dev", "team-a", "team-b"}) {
		t.Fatalf("sub %q claims %+v", idt.Subject, c)
	}
}

func TestNewRefusesProduction(t *testing.T) {
	t.Parallel()
	tests := []Config{
		{Env: "production", Issuer: testIssuer, RedirectURI: testCallback},
		{Issuer: "/dev/idp", RedirectURI: testCallback},
		{Issuer: testIssuer + "?x=1", RedirectURI: testCallback},
		{Issuer: testIssuer, RedirectURI: "/callback"},
	}
	for _, cfg := range tests {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
}

func TestHTTPClientPassesOtherHostsOn(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "elsewhere") }))
	defer other.Close()
	c := f.p.HTTPClient(nil)
	for _, u := range []string{other.URL + "/dev/idp/jwks", testIssuer + "/jwks"} {
		resp, err := c.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		local := strings.HasPrefix(u, testIssuer)
		if local != strings.Contains(string(body), `"keys"`) || !local && string(body) != "elsewhere" {
			t.Errorf("GET %s answered %q", u, body)
		}
	}
}
