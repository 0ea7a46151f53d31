package login

import (
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/oauth"
	"github.com/skygate/skygate/internal/postgres/pgtest"
	"github.com/skygate/skygate/internal/sqlite/sqlitetest"
)

// engines are the stores the end-to-end tests run on; PostgreSQL is skipped without
// SKYGATE_TEST_DATABASE_URL.
var engines = []struct {
	name string
	open func(tb testing.TB) codeStore
}{
	{"sqlite", func(tb testing.TB) codeStore { return sqlitetest.MustOpen(tb) }},
	{"postgres", func(tb testing.TB) codeStore { return pgtest.MustOpen(tb) }},
}

// TestEndToEndDevIdP runs the whole flow against the built-in dev IdP: login → dev
// IdP page → employee chosen → callback → SPA with a code → token endpoint → an
// employee token that the service's verifier accepts.
func TestEndToEndDevIdP(t *testing.T) {
	t.Parallel()
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			t.Parallel()
			e := setup(t, options{store: eng.open(t)})
			verifier, challenge := pkce()
			got := e.devLogin(challenge, "spa-state 1/?&=+%", url.Values{"employee": {"carol"}})
			if got.Get("state") != "spa-state 1/?&=+%" {
				t.Errorf("SPA state = %q, want it echoed", got.Get("state"))
			}
			if len(got.Get("code")) < 43 {
				t.Fatalf("one-time code %q is shorter than 256 bits", got.Get("code"))
			}
			status, body := e.token(codeGrant(got.Get("code"), verifier))
			if status != http.StatusOK {
				t.Fatalf("token: %d %v", status, body)
			}
			// Outside production every employee is an admin, even a developer.
			wantEmployeeToken(t, e, body, "dev-carol", []string{RoleAdmin}, RoleScopes(RoleAdmin))
			wantNoUpstreamToken(t, e)

			status, body = e.token(codeGrant(got.Get("code"), verifier))
			if status != http.StatusBadRequest || body["error"] != oauth.CodeInvalidGrant {
				t.Fatalf("second use of the code: %d %v, want 400 invalid_grant", status, body)
			}
		})
	}
}

// testUser is a mockoidc user whose userinfo carries sub and name, as OpenID Connect
// Core §5.3.2 requires (mockoidc's own MockUser leaves sub out).
type testUser struct {
	mockoidc.MockUser
	Name string
}

func (u *testUser) Userinfo(scope []string) ([]byte, error) {
	b, err := u.MockUser.Userinfo(scope)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	m["sub"], m["name"] = u.Subject, u.Name
	return json.Marshal(m)
}

// startMockOIDC runs oauth2-proxy's mockoidc, an OpenID Connect provider written
// independently of this code base, on a loopback port.
func startMockOIDC(t testing.TB) *mockoidc.MockOIDC {
	t.Helper()
	m, err := mockoidc.NewServer(nil)
	mustNoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	mustNoError(t, err)
	mustNoError(t, m.Start(ln, nil))
	t.Cleanup(func() { m.Shutdown() })
	return m
}

// TestEndToEndIndependentProvider runs the flow against mockoidc, in development, and
// in sandbox and production with the strict group mapping, on both engines. mockoidc checks the
// upstream PKCE verifier and puts the nonce in its RS256 ID tokens.
func TestEndToEndIndependentProvider(t *testing.T) {
	t.Parallel()
	roleMap := map[string]string{"grp-ops": RoleAdmin, "grp-audit": RoleAuditor, "grp-accounts": RoleAccountAdmin}
	tests := []struct {
		name   string
		env    string
		groups []string
		roles  []string // nil: 403 access_denied
		scopes []string
	}{
		{"development developer", "development", []string{"grp-dev"}, []string{RoleAdmin}, RoleScopes(RoleAdmin)},
		{"sandbox with the role map, no groups", "sandbox", nil, nil, nil},
		{"sandbox with the role map, ops", "sandbox", []string{"grp-ops"}, []string{RoleAdmin}, RoleScopes(RoleAdmin)},
		{"production ops", "production", []string{"grp-dev", "grp-ops"}, []string{RoleAdmin}, RoleScopes(RoleAdmin)},
		{"production accounts and audit", "production", []string{"grp-audit", "grp-accounts"},
			[]string{RoleAccountAdmin, RoleAuditor}, []string{skygate.ScopeAdminAccounts, skygate.ScopeAuditRead}},
		{"production developer", "production", []string{"grp-dev"}, nil, nil},
		{"production group case differs", "production", []string{"GRP-OPS"}, nil, nil},
	}
	for _, eng := range engines {
		for _, tt := range tests {
			t.Run(eng.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				m := startMockOIDC(t)
				cfg := m.Config()
				e := setup(t, options{env: tt.env, roleMap: roleMap, store: eng.open(t),
					issuer: cfg.Issuer, clientID: cfg.ClientID, secret: cfg.ClientSecret})
				m.QueueUser(&testUser{Name: "Dana Employee", MockUser: mockoidc.MockUser{
					Subject: "emp-4711", Email: "dana@example.com", EmailVerified: true, Groups: tt.groups,
				}})
				verifier, challenge := pkce()
				// mockoidc signs in the queued user at once and redirects back.
				got := spaLanding(t, e.browser.get(e.loginURL(spaRedirect, challenge, "xyz")))
				if got.Get("error") != "" || got.Get("state") != "xyz" {
					t.Fatalf("SPA redirect %v, want a code and state xyz", got)
				}
				status, body := e.token(codeGrant(got.Get("code"), verifier))
				wantNoUpstreamToken(t, e)
				if tt.roles == nil {
					if status != http.StatusForbidden || body["error"] != oauth.CodeAccessDenied || body["access_token"] != nil {
						t.Fatalf("employee with no role: %d %v, want 403 access_denied and no token", status, body)
					}
					return
				}
				if status != http.StatusOK {
					t.Fatalf("token: %d %v", status, body)
				}
				wantEmployeeToken(t, e, body, "emp-4711", tt.roles, tt.scopes)
			})
		}
	}
}

// wantEmployeeToken checks a token response and the token's claims.
func wantEmployeeToken(t *testing.T, e *env, body map[string]any, sub string, roles, scopes []string) {
	t.Helper()
	if body["token_type"] != "Bearer" || body["expires_in"] != float64(3600) || body["scope"] != strings.Join(scopes, " ") {
		t.Errorf("token response %v", body)
	}
	tok, _ := body["access_token"].(string)
	claims, err := e.verifier.Verify(t.Context(), tok)
	if err != nil {
		t.Fatalf("the employee token does not verify: %v", err)
	}
	switch {
	case claims.Issuer != e.base || !slices.Equal(claims.Audience, []string{e.base}):
		t.Errorf("iss %q aud %v, want %s", claims.Issuer, claims.Audience, e.base)
	case claims.Subject != sub || claims.ClientID != ConsoleClientID || claims.AccountID != "":
		t.Errorf("sub %q client_id %q account_id %q", claims.Subject, claims.ClientID, claims.AccountID)
	case !slices.Equal(claims.Roles, roles) || !slices.Equal(claims.Scopes, scopes):
		t.Errorf("roles %v scopes %v, want %v %v", claims.Roles, claims.Scopes, roles, scopes)
	case claims.ExpiresAt.Sub(claims.IssuedAt) != time.Hour || claims.ID == "":
		t.Errorf("iat %v exp %v jti %q", claims.IssuedAt, claims.ExpiresAt, claims.ID)
	}
}

// wantNoUpstreamToken fails when a token of the provider reached the browser: in a
// redirect, a header, a page or the token response.
func wantNoUpstreamToken(t *testing.T, e *env) {
	t.Helper()
	upstream := e.upstream.all()
	if len(upstream) < 2 {
		t.Fatalf("recorded %d provider tokens, want at least an access and an ID token", len(upstream))
	}
	seen := e.browser.transcript()
	for _, tok := range upstream {
		if strings.Contains(seen, tok) {
			t.Fatalf("a provider token reached the browser:\n%s", seen)
		}
	}
}
