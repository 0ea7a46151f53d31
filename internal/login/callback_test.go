package login

import (
	"bytes"
	"crypto/sha256"
	"net"
	"net/http"
	"net/url"
	"testing"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/skygate/skygate/internal/oauth"
)

// startUpstream runs the login route and returns the provider's authorization URL:
// the login has started and the browser holds the binding cookie.
func (e *env) startUpstream(spaState string) *url.URL {
	e.t.Helper()
	_, challenge := pkce()
	resp := e.noFollow(http.MethodGet, e.loginURL(spaRedirect, challenge, spaState))
	loc, err := url.Parse(resp.Header.Get("Location"))
	mustNoError(e.t, err)
	return loc
}

// callbackURL is the callback with query q.
func (e *env) callbackURL(q url.Values) string {
	return e.base + oauth.AuthorizationCallbackPath + "?" + q.Encode()
}

func TestCallbackBadState(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	state := e.startUpstream("s").Query().Get("state")
	tests := []struct {
		name  string
		query url.Values
	}{
		{"no state", url.Values{"code": {"c"}}},
		{"tampered state", url.Values{"code": {"c"}, "state": {"x" + state[1:]}}},
		{"state of another deployment", url.Values{"code": {"c"}, "state": {
			deriveKeys(bytes.Repeat([]byte{3}, 32)).signState(testState(e.clock.Now())),
		}}},
		{"provider error without state", url.Values{"error": {"access_denied"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wantProblem(t, e.noFollow(http.MethodGet, e.callbackURL(tt.query)))
		})
	}
}

func TestCallbackErrorsRedirectToTheSPA(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// run performs the failing step and returns the callback's response.
		run  func(e *env, authorize *url.URL) *http.Response
		want string
	}{
		{"expired state", func(e *env, a *url.URL) *http.Response {
			e.clock.Add(StateTTL)
			return e.noFollow(http.MethodGet, e.callbackURL(url.Values{"code": {"c"}, "state": {a.Query().Get("state")}}))
		}, "invalid_request"},
		{"another browser", func(e *env, a *url.URL) *http.Response {
			other := newBrowser(e.t)
			other.client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
			return other.get(e.callbackURL(url.Values{"code": {"c"}, "state": {a.Query().Get("state")}}))
		}, "invalid_request"},
		{"no code", func(e *env, a *url.URL) *http.Response {
			return e.noFollow(http.MethodGet, e.callbackURL(url.Values{"state": {a.Query().Get("state")}}))
		}, "invalid_request"},
		{"employee cancels at the provider", func(e *env, a *url.URL) *http.Response {
			return e.browser.submit(e.browser.get(a.String()), url.Values{"action": {"cancel"}})
		}, "access_denied"},
		{"provider misconfigured", func(e *env, a *url.URL) *http.Response {
			q := url.Values{"error": {"unauthorized_client"}, "state": {a.Query().Get("state")}}
			return e.noFollow(http.MethodGet, e.callbackURL(q))
		}, "server_error"},
		{"code the provider does not know", func(e *env, a *url.URL) *http.Response {
			return e.noFollow(http.MethodGet, e.callbackURL(url.Values{"code": {"forged"}, "state": {a.Query().Get("state")}}))
		}, "access_denied"},
		{"provider code used twice", func(e *env, a *url.URL) *http.Response {
			first := e.browser.client
			c := *first
			c.CheckRedirect = func(req *http.Request, _ []*http.Request) error {
				if req.URL.Path == oauth.AuthorizationCallbackPath {
					return http.ErrUseLastResponse
				}
				return nil
			}
			e.browser.client = &c
			toCallback := e.browser.submit(e.browser.get(a.String()), url.Values{"employee": {"alice"}})
			e.browser.client = first
			cb := toCallback.Header.Get("Location")
			spaLanding(e.t, e.noFollow(http.MethodGet, cb))
			return e.noFollow(http.MethodGet, cb)
		}, "access_denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := setup(t, options{})
			resp := tt.run(e, e.startUpstream("tab-1"))
			wantSPAError(t, resp, tt.want, "tab-1")
		})
	}
}

// TestCallbackStoresOnlyAHash checks the stored code: bound to the SPA's challenge and
// redirect URI, 60 s, and kept as a hash.
func TestCallbackStoresOnlyAHash(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	_, challenge := pkce()
	got := e.devLogin(challenge, "", url.Values{"username": {"dora"}, "name": {"Dora"}, "group": {"grp-ops"}, "extra_groups": {"x, y"}})
	if got.Has("state") {
		t.Errorf("a state came back though the SPA sent none: %v", got)
	}
	codes := e.store.(*memStore).all()
	if len(codes) != 1 {
		t.Fatalf("%d codes stored", len(codes))
	}
	c := codes[0]
	sum := sha256.Sum256([]byte(got.Get("code")))
	if !bytes.Equal(c.Hash, sum[:]) || c.Subject != "dev-dora" || c.Name != "Dora" || c.Email != "dora@dev.skygate.invalid" ||
		c.CodeChallenge != challenge || c.RedirectURI != spaRedirect || c.ExpiresAt.Sub(c.CreatedAt) != CodeTTL || c.UsedAt != nil {
		t.Fatalf("stored %+v", c)
	}
}

// TestCallbackChecksTheNonce swaps the provider's code into another login of the same
// browser. With PKCE towards the provider the provider refuses the exchange; without
// it (mockoidc advertising no PKCE), the ID token's nonce is that of the first login
// and Skygate refuses it.
func TestCallbackChecksTheNonce(t *testing.T) {
	t.Parallel()
	m, err := mockoidc.NewServer(nil)
	mustNoError(t, err)
	m.CodeChallengeMethodsSupported = nil
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	mustNoError(t, err)
	mustNoError(t, m.Start(ln, nil))
	t.Cleanup(func() { m.Shutdown() })
	cfg := m.Config()
	e := setup(t, options{issuer: cfg.Issuer, clientID: cfg.ClientID, secret: cfg.ClientSecret})

	first := e.startUpstream("first")
	if first.Query().Has("code_challenge") {
		t.Fatal("a code_challenge went to a provider that does not advertise PKCE")
	}
	// The provider signs the employee in for the first login; keep its code.
	resp := e.noFollow(http.MethodGet, first.String())
	cb, err := url.Parse(resp.Header.Get("Location"))
	mustNoError(t, err)
	code := cb.Query().Get("code")
	second := e.startUpstream("second")
	resp = e.noFollow(http.MethodGet, e.callbackURL(url.Values{"code": {code}, "state": {second.Query().Get("state")}}))
	wantSPAError(t, resp, "access_denied", "second")
}
