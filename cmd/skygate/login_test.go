package main

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/config"
	"github.com/skygate/skygate/internal/login"
	"github.com/skygate/skygate/internal/oauth"
	"github.com/skygate/skygate/internal/seal"
	"github.com/skygate/skygate/internal/sqlite/sqlitetest"
)

// employeeBrowser is a user agent with cookies that follows redirects until the
// console's callback, where the SPA would take over. dial, when set, replaces the
// address of every connection (for hosts that only the test knows).
func employeeBrowser(tb testing.TB, dial string) *http.Client {
	tb.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		tb.Fatal(err)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if dial != "" {
		tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, dial)
		}
	}
	return &http.Client{Jar: jar, Transport: tr, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if req.URL.Path == "/admin/callback" || len(via) > 10 {
			return http.ErrUseLastResponse
		}
		return nil
	}}
}

var (
	loginFormRE   = regexp.MustCompile(`<form method="post" action="([^"]+)">`)
	loginHiddenRE = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)
)

// employeeSignIn runs the browser side of a login at base with the dev IdP, signing in
// as the preset employee, and returns the one-time code and the PKCE verifier.
func employeeSignIn(tb testing.TB, c *http.Client, base, employee string) (code, verifier string) {
	tb.Helper()
	verifier = oauth2.GenerateVerifier()
	q := url.Values{"redirect_uri": {base + "/admin/callback"}, "code_challenge": {oauth2.S256ChallengeFromVerifier(verifier)},
		"code_challenge_method": {"S256"}, "state": {"console-state"}}
	page, err := c.Get(base + oauth.AuthorizationPath + "?" + q.Encode())
	if err != nil {
		tb.Fatal(err)
	}
	body, _ := io.ReadAll(page.Body)
	page.Body.Close()
	m := loginFormRE.FindSubmatch(body)
	if page.StatusCode != http.StatusOK || m == nil {
		tb.Fatalf("dev IdP page: %d %s", page.StatusCode, body)
	}
	form := url.Values{"employee": {employee}}
	for _, h := range loginHiddenRE.FindAllSubmatch(body, -1) {
		form.Set(html.UnescapeString(string(h[1])), html.UnescapeString(string(h[2])))
	}
	action, _ := page.Request.URL.Parse(html.UnescapeString(string(m[1])))
	resp, err := c.PostForm(action.String(), form)
	if err != nil {
		tb.Fatal(err)
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || resp.StatusCode != http.StatusFound || loc.Path != "/admin/callback" ||
		loc.Query().Get("state") != "console-state" || loc.Query().Get("code") == "" {
		tb.Fatalf("redirect to the console: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	return loc.Query().Get("code"), verifier
}

// employeeToken exchanges the code at base's token endpoint.
func employeeToken(tb testing.TB, c *http.Client, base, code, verifier string) string {
	tb.Helper()
	resp, err := c.PostForm(base+oauth.TokenPath, url.Values{"grant_type": {"authorization_code"},
		"code": {code}, "code_verifier": {verifier}, "redirect_uri": {base + "/admin/callback"}})
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	var tr tokenResponse
	if err := json.NewDecoder(resp.Body).Decode(&tr); err != nil || resp.StatusCode != http.StatusOK {
		tb.Fatalf("token: %d %v", resp.StatusCode, err)
	}
	return tr.AccessToken
}

// TestEmployeeLoginWiring runs employee login built by newEmployeeLogin from a
// development configuration, with the token endpoint holding both grants: the dev
// IdP is chosen, the flow works and the token carries the employee claims.
func TestEmployeeLoginWiring(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	srv := httptest.NewUnstartedServer(mux)
	t.Cleanup(srv.Close)
	base := "http://" + srv.Listener.Addr().String()
	cfg, err := config.Load(func(k string) string {
		return map[string]string{"SKYGATE_PUBLIC_URL": base, "SKYGATE_MASTER_KEY": testMasterKey}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	box, err := seal.New(cfg.MasterKey)
	if err != nil {
		t.Fatal(err)
	}
	store := sqlitetest.MustOpen(t)
	keys := oauth.NewKeyManager(store, box, time.Now, oauth.KeyManagerOptions{})
	if err := keys.EnsureKey(t.Context()); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	el, err := newEmployeeLogin(cfg, box, store, keys, log)
	if err != nil {
		t.Fatal(err)
	}
	if el.devIdP == nil || el.devIdP.Issuer() != base+"/dev/idp" {
		t.Fatal("the dev IdP is not used without SKYGATE_OIDC_ISSUER")
	}
	issuer, err := oauth.NewIssuer(keys, oauth.IssuerConfig{Issuer: base})
	if err != nil {
		t.Fatal(err)
	}
	el.register(mux, func(h func(http.ResponseWriter, *http.Request) error) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if err := h(w, r); err != nil {
				http.Error(w, skygate.ErrorMessage(err), http.StatusBadRequest)
			}
		})
	})
	mux.Handle("POST "+oauth.TokenPath, oauth.NewTokenHandler(log,
		oauth.NewClientCredentialsGrant(oauth.NewClientAuthenticator(oauth.NewApplicationCache(store, time.Second, nil), oauth.NewSecretHasher(box)), issuer), el.grant))
	srv.Start()

	c := employeeBrowser(t, "")
	code, verifier := employeeSignIn(t, c, base, "bob")
	tok := employeeToken(t, c, base, code, verifier)
	v, err := oauth.NewVerifier(keys, oauth.VerifierConfig{Issuer: base})
	if err != nil {
		t.Fatal(err)
	}
	claims, err := v.Verify(t.Context(), tok)
	if err != nil {
		t.Fatal(err)
	}
	if claims.Subject != "dev-bob" || claims.ClientID != login.ConsoleClientID || !slices.Equal(claims.Roles, []string{login.RoleAdmin}) ||
		!claims.HasScope(skygate.ScopeAdminAccounts) || claims.ExpiresAt.Sub(claims.IssuedAt) != time.Hour {
		t.Fatalf("claims %+v", claims)
	}
}

func TestNewEmployeeLoginRefusesDevIdPInProduction(t *testing.T) {
	t.Parallel()
	box, err := seal.New(seal.NewMasterKey())
	if err != nil {
		t.Fatal(err)
	}
	keys := oauth.NewKeyManager(sqlitetest.MustOpen(t), box, time.Now, oauth.KeyManagerOptions{})
	// A production configuration that enables the dev IdP, as config.Load never returns.
	cfg := &config.Config{Env: config.EnvProduction, PublicURL: "https://skygate.test", EnableDevIdP: true,
		AdminRedirects: []string{"https://skygate.test/admin/callback"}, RoleMap: map[string]string{"grp-ops": "admin"}}
	_, err = newEmployeeLogin(cfg, box, sqlitetest.MustOpen(t), keys, slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), "production") {
		t.Fatalf("err = %v, want the dev IdP refused in production", err)
	}
}

// TestEmployeeLoginServe runs the flow through `skygate serve` with the dev IdP, at
// the test servers' public URL, and uses the token on an admin route. It skips until
// serve registers the login routes.
func TestEmployeeLoginServe(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, nil))
	probe, err := http.Get(s.base + oauth.AuthorizationPath)
	if err != nil {
		t.Fatal(err)
	}
	probe.Body.Close()
	if probe.StatusCode == http.StatusNotFound {
		t.Skip("serve does not register the employee login routes yet")
	}
	// The browser knows the service by its public URL; connections go to the listener.
	c := employeeBrowser(t, strings.TrimPrefix(s.base, "http://"))
	code, verifier := employeeSignIn(t, c, testPublicURL, "carol")
	tok := employeeToken(t, c, testPublicURL, code, verifier)
	req, _ := http.NewRequest(http.MethodGet, testPublicURL+"/api/v1/admin/accounts", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("admin route with the employee token: %d", resp.StatusCode)
	}
}
