package login

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/oauth"
	"github.com/skygate/skygate/internal/seal"
)

const grantIssuer = "https://skygate.test"

// grantSetup is the token endpoint with only the employee grant, over memory stores
// and a test clock.
type grantSetup struct {
	clock    *clock
	codes    *memCodes
	endpoint http.Handler
	verifier *oauth.Verifier
}

func newGrantSetup(t *testing.T) *grantSetup {
	t.Helper()
	g := &grantSetup{clock: newClock(time.Now()), codes: &memCodes{}}
	box, err := seal.New(bytes.Repeat([]byte{9}, seal.KeySize))
	mustNoError(t, err)
	keys := oauth.NewKeyManager(&memKeys{}, box, g.clock.Now, oauth.KeyManagerOptions{})
	mustNoError(t, keys.EnsureKey(t.Context()))
	issuer, err := oauth.NewIssuer(keys, oauth.IssuerConfig{Issuer: grantIssuer, TTL: TokenTTL, Clock: g.clock.Now})
	mustNoError(t, err)
	g.verifier, err = oauth.NewVerifier(keys, oauth.VerifierConfig{Issuer: grantIssuer, Clock: g.clock.Now})
	mustNoError(t, err)
	g.endpoint = oauth.NewTokenHandler(nil, NewGrant(GrantConfig{Codes: g.codes, Issuer: issuer, Clock: g.clock.Now}))
	return g
}

// mustCode stores a code made at the current time for rfcChallenge and spaRedirect,
// for an admin unless opts say otherwise, and returns the code.
func (g *grantSetup) mustCode(t *testing.T, opts ...func(*skygate.LoginCode)) string {
	t.Helper()
	code := newRandom()
	sum := sha256.Sum256([]byte(code))
	now := g.clock.Now()
	c := &skygate.LoginCode{
		Hash: sum[:], Subject: "emp-1", Email: "e@example.com", Name: "E",
		Roles: []string{RoleAdmin}, Scopes: RoleScopes(RoleAdmin),
		CodeChallenge: rfcChallenge, RedirectURI: spaRedirect, CreatedAt: now, ExpiresAt: now.Add(CodeTTL),
	}
	for _, o := range opts {
		o(c)
	}
	mustNoError(t, g.codes.CreateLoginCode(t.Context(), c))
	return code
}

// post sends a form token request, with HTTP Basic when basic is set.
func (g *grantSetup) post(form url.Values, basic []string) (int, map[string]any) {
	req := httptest.NewRequest(http.MethodPost, oauth.TokenPath, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if basic != nil {
		req.SetBasicAuth(basic[0], basic[1])
	}
	rec := httptest.NewRecorder()
	g.endpoint.ServeHTTP(rec, req)
	var body map[string]any
	json.Unmarshal(rec.Body.Bytes(), &body)
	return rec.Code, body
}

func TestGrant(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		code    func(*skygate.LoginCode) // changes the stored code
		form    func(f url.Values, code string)
		basic   []string
		advance time.Duration
		status  int
		err     string
	}{
		{name: "success", status: 200},
		{name: "client_id of the console", form: func(f url.Values, _ string) { f.Set("client_id", ConsoleClientID) }, status: 200},
		{name: "matching redirect_uri", form: func(f url.Values, _ string) { f.Set("redirect_uri", spaRedirect) }, status: 200},
		{name: "59 seconds later", advance: 59 * time.Second, status: 200},
		{name: "60 seconds later", advance: CodeTTL, status: 400, err: oauth.CodeInvalidGrant},
		{name: "wrong verifier", form: func(f url.Values, _ string) { f.Set("code_verifier", strings.Repeat("x", 43)) }, status: 400, err: oauth.CodeInvalidGrant},
		{name: "plain: the challenge as verifier", form: func(f url.Values, _ string) { f.Set("code_verifier", rfcChallenge) }, status: 400, err: oauth.CodeInvalidGrant},
		{name: "short verifier", form: func(f url.Values, _ string) { f.Set("code_verifier", "abc") }, status: 400, err: oauth.CodeInvalidRequest},
		{name: "no verifier", form: func(f url.Values, _ string) { f.Del("code_verifier") }, status: 400, err: oauth.CodeInvalidRequest},
		{name: "no code", form: func(f url.Values, _ string) { f.Del("code") }, status: 400, err: oauth.CodeInvalidRequest},
		{name: "unknown code", form: func(f url.Values, _ string) { f.Set("code", newRandom()) }, status: 400, err: oauth.CodeInvalidGrant},
		{name: "huge code", form: func(f url.Values, _ string) { f.Set("code", strings.Repeat("a", 300)) }, status: 400, err: oauth.CodeInvalidGrant},
		{name: "other redirect_uri", form: func(f url.Values, _ string) { f.Set("redirect_uri", spaRedirect+"/") }, status: 400, err: oauth.CodeInvalidGrant},
		{name: "other client_id", form: func(f url.Values, _ string) { f.Set("client_id", "skg_partner") }, status: 401, err: oauth.CodeInvalidClient},
		{name: "client secret in the body", form: func(f url.Values, _ string) {
			f.Set("client_id", ConsoleClientID)
			f.Set("client_secret", "s")
		}, status: 401, err: oauth.CodeInvalidClient},
		{name: "HTTP Basic", basic: []string{ConsoleClientID, "s"}, status: 401, err: oauth.CodeInvalidClient},
		{name: "no role", code: func(c *skygate.LoginCode) { c.Roles, c.Scopes = []string{}, []string{} }, status: 403, err: oauth.CodeAccessDenied},
		{name: "auditor", code: func(c *skygate.LoginCode) {
			c.Roles, c.Scopes = []string{RoleAuditor}, []string{skygate.ScopeAuditRead}
		}, status: 200},
		{name: "no redirect_uri", form: func(f url.Values, _ string) { f.Del("redirect_uri") }, status: 400, err: oauth.CodeInvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := newGrantSetup(t)
			var opts []func(*skygate.LoginCode)
			if tt.code != nil {
				opts = append(opts, tt.code)
			}
			code := g.mustCode(t, opts...)
			form := codeGrant(code, rfcVerifier)
			if tt.form != nil {
				tt.form(form, code)
			}
			g.clock.Add(tt.advance)
			status, body := g.post(form, tt.basic)
			if status != tt.status || (tt.err != "" && body["error"] != tt.err) {
				t.Fatalf("status %d body %v; want %d %s", status, body, tt.status, tt.err)
			}
			if tt.err != "" {
				if body["access_token"] != nil {
					t.Fatal("an error response carries a token")
				}
				return
			}
			claims, err := g.verifier.Verify(t.Context(), body["access_token"].(string))
			if err != nil {
				t.Fatal(err)
			}
			if claims.Subject != "emp-1" || claims.ClientID != ConsoleClientID || claims.AccountID != "" ||
				!claims.IssuedAt.Equal(g.clock.Now().Truncate(time.Second)) || claims.ExpiresAt.Sub(claims.IssuedAt) != TokenTTL {
				t.Fatalf("claims %+v", claims)
			}
		})
	}
}

// TestGrantSingleUse shows that a code works once, and that a failed attempt uses it
// up too.
func TestGrantSingleUse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		firstForm func(url.Values)
		first     int
	}{
		{"after a success", func(url.Values) {}, 200},
		{"after a wrong verifier", func(f url.Values) { f.Set("code_verifier", strings.Repeat("y", 50)) }, 400},
		{"after a wrong redirect_uri", func(f url.Values) { f.Set("redirect_uri", "https://console.test/") }, 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := newGrantSetup(t)
			code := g.mustCode(t)
			first := codeGrant(code, rfcVerifier)
			tt.firstForm(first)
			if status, body := g.post(first, nil); status != tt.first {
				t.Fatalf("first attempt: %d %v", status, body)
			}
			status, body := g.post(codeGrant(code, rfcVerifier), nil)
			if status != 400 || body["error"] != oauth.CodeInvalidGrant {
				t.Fatalf("second attempt: %d %v, want 400 invalid_grant", status, body)
			}
		})
	}
}
