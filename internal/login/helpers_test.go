package login

import (
	"bytes"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/devidp"
	"github.com/skygate/skygate/internal/oauth"
	"github.com/skygate/skygate/internal/seal"
)

// spaRedirect is the admin console's registered redirect URI in tests. Its host does
// not resolve: the browser stops at the redirect to it.
const spaRedirect = "https://console.test/admin/callback"

// codeStore is what the handler chain needs from a store.
type codeStore interface {
	skygate.KeyStore
	skygate.LoginCodeStore
}

// memStore is the in-memory codeStore of unit tests.
type memStore struct {
	memKeys
	memCodes
}

// options select the provider, the environment and the store of a test setup.
type options struct {
	// env is SKYGATE_ENV, development by default.
	env     string
	roleMap map[string]string
	// issuer, clientID and secret name an external provider; empty means the dev IdP
	// served by the test server.
	issuer, clientID, secret string
	store                    codeStore
}

// env is Skygate's employee login served by an httptest server: the login and
// callback routes, the token endpoint with the authorization_code grant, and the dev
// IdP, wired as cmd/skygate wires them.
type env struct {
	t        testing.TB
	base     string
	clock    *clock
	store    codeStore
	handler  *Handler
	verifier *oauth.Verifier
	idp      *devidp.Provider // nil with an external provider
	browser  *browser
	// upstream records every token the provider handed to Skygate.
	upstream *tokenRecorder
}

// setup starts the server of o.
func setup(t testing.TB, o options) *env {
	t.Helper()
	if o.env == "" {
		o.env = "development"
	}
	if o.store == nil {
		o.store = &memStore{}
	}
	e := &env{t: t, clock: newClock(time.Now()), store: o.store, upstream: &tokenRecorder{}}
	mux := http.NewServeMux()
	srv := httptest.NewUnstartedServer(mux)
	t.Cleanup(srv.Close)
	e.base = "http://" + srv.Listener.Addr().String()

	box, err := seal.New(bytes.Repeat([]byte{7}, seal.KeySize))
	mustNoError(t, err)
	keys := oauth.NewKeyManager(o.store, box, e.clock.Now, oauth.KeyManagerOptions{})
	mustNoError(t, keys.EnsureKey(t.Context()))
	issuer, err := oauth.NewIssuer(keys, oauth.IssuerConfig{Issuer: e.base, TTL: TokenTTL, Clock: e.clock.Now})
	mustNoError(t, err)
	e.verifier, err = oauth.NewVerifier(keys, oauth.VerifierConfig{Issuer: e.base, Clock: e.clock.Now})
	mustNoError(t, err)

	callback := e.base + oauth.AuthorizationCallbackPath
	backChannel := http.DefaultTransport
	if o.issuer == "" {
		e.idp, err = devidp.New(devidp.Config{Env: o.env, Issuer: e.base + "/dev/idp", RedirectURI: callback, Clock: e.clock.Now})
		mustNoError(t, err)
		mux.Handle(e.idp.Pattern(), e.idp.Handler())
		o.issuer, o.clientID, o.secret = e.idp.Issuer(), e.idp.ClientID(), e.idp.ClientSecret()
		backChannel = e.idp.HTTPClient(nil).Transport
	}
	policy, err := NewPolicy(o.env, o.roleMap)
	mustNoError(t, err)
	e.handler, err = New(Config{
		Issuer: o.issuer, ClientID: o.clientID, ClientSecret: o.secret,
		CallbackURL:  callback,
		RedirectURIs: []string{spaRedirect, e.base + "/admin/callback"},
		Policy:       policy,
		StateKey:     box.DeriveKey(seal.PurposeLoginState),
		Codes:        o.store,
		HTTPClient:   &http.Client{Transport: &recordingTransport{next: backChannel, rec: e.upstream}},
		Clock:        e.clock.Now,
	})
	mustNoError(t, err)
	grant := NewGrant(GrantConfig{Codes: o.store, Issuer: issuer, Clock: e.clock.Now})

	mux.Handle("GET "+oauth.AuthorizationPath, adapt(e.handler.Login))
	mux.Handle("GET "+oauth.AuthorizationCallbackPath, adapt(e.handler.Callback))
	mux.Handle("POST "+oauth.TokenPath, oauth.NewTokenHandler(nil, grant))
	srv.Start()
	e.browser = newBrowser(t)
	return e
}

// adapt renders a handler's error the way the HTTP layer does, as problem+json.
func adapt(h func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			status := http.StatusInternalServerError
			if skygate.IsCode(err, skygate.CodeBadRequest) {
				status = http.StatusBadRequest
			}
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(status)
			json.NewEncoder(w).Encode(map[string]any{
				"status": status, "code": skygate.ErrorCode(err), "detail": skygate.ErrorMessage(err),
			})
		}
	})
}

// tokenRecorder keeps every token a provider's token endpoint answered.
type tokenRecorder struct {
	mu     sync.Mutex
	tokens []string
}

func (r *tokenRecorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.tokens...)
}

// recordingTransport is Skygate's back channel, spied on.
type recordingTransport struct {
	next http.RoundTripper
	rec  *tokenRecorder
}

func (t *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || !strings.HasSuffix(req.URL.Path, "/token") {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var m map[string]any
	if json.Unmarshal(body, &m) == nil {
		t.rec.mu.Lock()
		for _, k := range []string{"access_token", "id_token", "refresh_token"} {
			if s, ok := m[k].(string); ok && s != "" {
				t.rec.tokens = append(t.rec.tokens, s)
			}
		}
		t.rec.mu.Unlock()
	}
	return resp, nil
}

// browser is a user agent with a cookie jar that follows redirects, except to the
// SPA, and remembers everything it was sent.
type browser struct {
	t      testing.TB
	client *http.Client
	mu     sync.Mutex
	seen   []string // every response's status line, headers and body
}

func newBrowser(t testing.TB) *browser {
	jar, err := cookiejar.New(nil)
	mustNoError(t, err)
	b := &browser{t: t}
	b.client = &http.Client{
		Jar:       jar,
		Transport: b,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if req.URL.Host == "console.test" || len(via) > 10 {
				return http.ErrUseLastResponse
			}
			return nil
		},
	}
	return b
}

func (b *browser) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var dump strings.Builder
	dump.WriteString(resp.Status + "\n")
	resp.Header.Write(&dump)
	dump.Write(body)
	b.mu.Lock()
	b.seen = append(b.seen, dump.String())
	b.mu.Unlock()
	return resp, nil
}

// transcript returns everything the browser was sent.
func (b *browser) transcript() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(b.seen, "\n")
}

// get sends a GET; the response body has been read and may be read again.
func (b *browser) get(u string) *http.Response {
	b.t.Helper()
	resp, err := b.client.Get(u)
	mustNoError(b.t, err)
	return resp
}

var (
	formRE   = regexp.MustCompile(`<form method="post" action="([^"]+)">`)
	hiddenRE = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)
)

// submit fills in the first form of an HTML page with its hidden fields and extra,
// and posts it as the browser would.
func (b *browser) submit(page *http.Response, extra url.Values) *http.Response {
	b.t.Helper()
	body, _ := io.ReadAll(page.Body)
	m := formRE.FindSubmatch(body)
	if m == nil {
		b.t.Fatalf("no form in the page (status %d): %s", page.StatusCode, body)
	}
	action, err := page.Request.URL.Parse(html.UnescapeString(string(m[1])))
	mustNoError(b.t, err)
	form := url.Values{}
	for _, h := range hiddenRE.FindAllSubmatch(body, -1) {
		form.Set(html.UnescapeString(string(h[1])), html.UnescapeString(string(h[2])))
	}
	for k, vs := range extra {
		form[k] = vs
	}
	resp, err := b.client.PostForm(action.String(), form)
	mustNoError(b.t, err)
	return resp
}

// pkce returns a fresh verifier and its S256 challenge, made by x/oauth2.
func pkce() (verifier, challenge string) {
	v := oauth2.GenerateVerifier()
	return v, oauth2.S256ChallengeFromVerifier(v)
}

// loginURL is the login route with the SPA's parameters.
func (e *env) loginURL(redirectURI, challenge, spaState string) string {
	q := url.Values{"redirect_uri": {redirectURI}, "code_challenge": {challenge}, "code_challenge_method": {"S256"}}
	if spaState != "" {
		q.Set("state", spaState)
	}
	return e.base + oauth.AuthorizationPath + "?" + q.Encode()
}

// spaLanding returns the query of the redirect to the SPA that resp must be.
func spaLanding(tb testing.TB, resp *http.Response) url.Values {
	tb.Helper()
	if resp.StatusCode != http.StatusFound {
		body, _ := io.ReadAll(resp.Body)
		tb.Fatalf("status %d, want 302 to the SPA; body %s", resp.StatusCode, body)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	mustNoError(tb, err)
	if got := loc.Scheme + "://" + loc.Host + loc.Path; got != spaRedirect {
		tb.Fatalf("redirected to %s, want %s", loc, spaRedirect)
	}
	return loc.Query()
}

// devLogin runs the whole browser side with the dev IdP: the login route, the dev
// IdP's page, the chosen employee, the callback. It returns the SPA's query.
func (e *env) devLogin(challenge, spaState string, employee url.Values) url.Values {
	e.t.Helper()
	page := e.browser.get(e.loginURL(spaRedirect, challenge, spaState))
	if page.StatusCode != http.StatusOK {
		e.t.Fatalf("dev IdP page: status %d", page.StatusCode)
	}
	return spaLanding(e.t, e.browser.submit(page, employee))
}

// token posts a token request and returns the status and the decoded body.
func (e *env) token(form url.Values) (int, map[string]any) {
	e.t.Helper()
	resp, err := e.browser.client.PostForm(e.base+oauth.TokenPath, form)
	mustNoError(e.t, err)
	defer resp.Body.Close()
	var body map[string]any
	mustNoError(e.t, json.NewDecoder(resp.Body).Decode(&body))
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
		e.t.Errorf("token response Cache-Control %q, want no-store", cc)
	}
	return resp.StatusCode, body
}

// codeGrant is the SPA's token request.
func codeGrant(code, verifier string) url.Values {
	return url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {verifier}, "redirect_uri": {spaRedirect}}
}

func mustNoError(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}
