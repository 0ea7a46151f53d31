package oauth_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/oauth"
)

const (
	formType = "application/x-www-form-urlencoded"
	jsonType = "application/json"
)

// tokenCall is one request to the token endpoint.
type tokenCall struct {
	method      string // default POST
	contentType string
	body        string
	basic       []string // id, secret: form-encoded and sent as HTTP Basic
	authHeader  string   // a raw Authorization header
}

func (f *fixture) post(tb testing.TB, c tokenCall) *httptest.ResponseRecorder {
	tb.Helper()
	if c.method == "" {
		c.method = http.MethodPost
	}
	r := httptest.NewRequest(c.method, oauth.TokenPath, strings.NewReader(c.body))
	if c.contentType != "" {
		r.Header.Set("Content-Type", c.contentType)
	}
	if c.basic != nil {
		r.SetBasicAuth(url.QueryEscape(c.basic[0]), url.QueryEscape(c.basic[1]))
	}
	if c.authHeader != "" {
		r.Header.Add("Authorization", c.authHeader) // after basic: a second header
	}
	w := httptest.NewRecorder()
	f.handler.ServeHTTP(w, r)
	return w
}

func form(kv ...string) string {
	v := url.Values{}
	for i := 0; i < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return v.Encode()
}

func jsonBody(m map[string]any) string {
	b, _ := json.Marshal(m)
	return string(b)
}

func TestTokenEndpoint(t *testing.T) {
	t.Parallel()
	f := setup(t)
	id, secret := f.MustApplication(t, appOptions{})
	oddID, oddSecret := f.MustApplication(t, appOptions{ClientID: "partner:one+two/ü %"})
	suspID, suspSecret := f.MustApplication(t, appOptions{Suspended: true})
	noScopeID, noScopeSecret := f.MustApplication(t, appOptions{Scopes: []string{}})
	f.apps.failClientID = "explode"
	allScopes := "catalog.lounges:read catalog.fasttrack:read booking.fasttrack:read"
	cc := "client_credentials"

	tests := []struct {
		name       string
		call       tokenCall
		wantStatus int
		wantError  string // "" for success
		wantScope  string
		wantSub    string // default id
		challenge  bool   // WWW-Authenticate: Basic expected
	}{
		{name: "form, client_secret_post", call: tokenCall{contentType: formType, body: form("grant_type", cc, "client_id", id, "client_secret", secret)},
			wantStatus: 200, wantScope: allScopes},
		{name: "form, client_secret_basic", call: tokenCall{contentType: formType, body: form("grant_type", cc), basic: []string{id, secret}},
			wantStatus: 200, wantScope: allScopes},
		{name: "json, client_secret_post", call: tokenCall{contentType: jsonType, body: jsonBody(map[string]any{"grant_type": cc, "client_id": id, "client_secret": secret})},
			wantStatus: 200, wantScope: allScopes},
		{name: "json with charset, client_secret_basic", call: tokenCall{contentType: jsonType + "; charset=utf-8", body: `{"grant_type":"client_credentials"}`, basic: []string{id, secret}},
			wantStatus: 200, wantScope: allScopes},
		{name: "basic with client_id in body too", call: tokenCall{contentType: formType, body: form("grant_type", cc, "client_id", id), basic: []string{id, secret}},
			wantStatus: 200, wantScope: allScopes},
		{name: "basic with RFC 6749 form-encoding", call: tokenCall{contentType: formType, body: form("grant_type", cc), basic: []string{oddID, oddSecret}},
			wantStatus: 200, wantScope: allScopes, wantSub: oddID},
		{name: "scope intersection", call: tokenCall{contentType: formType, body: form("grant_type", cc, "scope", "esim:read booking.fasttrack:read catalog.lounges:read"), basic: []string{id, secret}},
			wantStatus: 200, wantScope: "booking.fasttrack:read catalog.lounges:read"},
		{name: "scope duplicates", call: tokenCall{contentType: formType, body: form("grant_type", cc, "scope", "catalog.lounges:read  catalog.lounges:read"), basic: []string{id, secret}},
			wantStatus: 200, wantScope: "catalog.lounges:read"},
		{name: "empty scope means all", call: tokenCall{contentType: formType, body: form("grant_type", cc, "scope", ""), basic: []string{id, secret}},
			wantStatus: 200, wantScope: allScopes},
		{name: "json scope array", call: tokenCall{contentType: jsonType, body: jsonBody(map[string]any{"grant_type": cc, "scope": []string{"catalog.lounges:read", "esim:write"}}), basic: []string{id, secret}},
			wantStatus: 200, wantScope: "catalog.lounges:read"},

		{name: "empty intersection", call: tokenCall{contentType: formType, body: form("grant_type", cc, "scope", "esim:read esim:write"), basic: []string{id, secret}},
			wantStatus: 400, wantError: "invalid_scope"},
		{name: "admin scope", call: tokenCall{contentType: formType, body: form("grant_type", cc, "scope", skygate.ScopeAdminAccounts), basic: []string{id, secret}},
			wantStatus: 400, wantError: "invalid_scope"},
		{name: "unknown scope is left out", call: tokenCall{contentType: formType, body: form("grant_type", cc, "scope", "catalog.lounges:read lounges:steal"), basic: []string{id, secret}},
			wantStatus: 200, wantScope: "catalog.lounges:read"},
		{name: "only unknown scopes", call: tokenCall{contentType: formType, body: form("grant_type", cc, "scope", "lounges:steal root"), basic: []string{id, secret}},
			wantStatus: 400, wantError: "invalid_scope"},
		{name: "malformed scope", call: tokenCall{contentType: formType, body: form("grant_type", cc, "scope", `catalog.lounges:read "quoted"`), basic: []string{id, secret}},
			wantStatus: 400, wantError: "invalid_scope"},
		{name: "scope with a backslash", call: tokenCall{contentType: formType, body: form("grant_type", cc, "scope", `catalog.lounges:read a\b`), basic: []string{id, secret}},
			wantStatus: 400, wantError: "invalid_scope"},
		{name: "no allowed scopes", call: tokenCall{contentType: formType, body: form("grant_type", cc), basic: []string{noScopeID, noScopeSecret}},
			wantStatus: 400, wantError: "invalid_scope"},

		{name: "bad secret, post", call: tokenCall{contentType: formType, body: form("grant_type", cc, "client_id", id, "client_secret", secret+"x")},
			wantStatus: 401, wantError: "invalid_client"},
		{name: "bad secret, basic", call: tokenCall{contentType: formType, body: form("grant_type", cc), basic: []string{id, "sks_wrong"}},
			wantStatus: 401, wantError: "invalid_client", challenge: true},
		{name: "other client's secret", call: tokenCall{contentType: formType, body: form("grant_type", cc), basic: []string{id, oddSecret}},
			wantStatus: 401, wantError: "invalid_client", challenge: true},
		{name: "unknown client, post", call: tokenCall{contentType: formType, body: form("grant_type", cc, "client_id", "nobody", "client_secret", secret)},
			wantStatus: 401, wantError: "invalid_client"},
		{name: "unknown client, basic", call: tokenCall{contentType: formType, body: form("grant_type", cc), basic: []string{"nobody", secret}},
			wantStatus: 401, wantError: "invalid_client", challenge: true},
		{name: "no secret", call: tokenCall{contentType: formType, body: form("grant_type", cc, "client_id", id)},
			wantStatus: 401, wantError: "invalid_client"},
		{name: "no client at all", call: tokenCall{contentType: formType, body: form("grant_type", cc)},
			wantStatus: 401, wantError: "invalid_client"},
		{name: "two Authorization headers", call: tokenCall{contentType: formType, body: form("grant_type", cc), basic: []string{id, secret}, authHeader: "Basic " + base64.StdEncoding.EncodeToString([]byte("x:y"))},
			wantStatus: 400, wantError: "invalid_request"},
		{name: "malformed basic", call: tokenCall{contentType: formType, body: form("grant_type", cc), authHeader: "Basic !!!"},
			wantStatus: 401, wantError: "invalid_client", challenge: true},
		{name: "bearer instead of basic", call: tokenCall{contentType: formType, body: form("grant_type", cc), authHeader: "Bearer abc"},
			wantStatus: 401, wantError: "invalid_client", challenge: true},
		{name: "basic id with bad escape", call: tokenCall{contentType: formType, body: form("grant_type", cc),
			authHeader: "Basic " + base64.StdEncoding.EncodeToString([]byte("%zz:"+secret))},
			wantStatus: 401, wantError: "invalid_client", challenge: true},
		{name: "suspended account", call: tokenCall{contentType: formType, body: form("grant_type", cc), basic: []string{suspID, suspSecret}},
			wantStatus: 400, wantError: "invalid_grant"},
		{name: "suspended account, bad secret", call: tokenCall{contentType: formType, body: form("grant_type", cc), basic: []string{suspID, "sks_x"}},
			wantStatus: 401, wantError: "invalid_client", challenge: true},

		{name: "basic and post both", call: tokenCall{contentType: formType, body: form("grant_type", cc, "client_secret", secret), basic: []string{id, secret}},
			wantStatus: 400, wantError: "invalid_request"},
		{name: "basic and different body client_id", call: tokenCall{contentType: formType, body: form("grant_type", cc, "client_id", oddID), basic: []string{id, secret}},
			wantStatus: 400, wantError: "invalid_request"},
		{name: "unsupported grant", call: tokenCall{contentType: formType, body: form("grant_type", "password", "username", "a", "password", "b"), basic: []string{id, secret}},
			wantStatus: 400, wantError: "unsupported_grant_type"},
		{name: "authorization_code not registered", call: tokenCall{contentType: formType, body: form("grant_type", "authorization_code", "code", "x")},
			wantStatus: 400, wantError: "unsupported_grant_type"},
		{name: "missing grant_type", call: tokenCall{contentType: formType, body: form("client_id", id, "client_secret", secret)},
			wantStatus: 400, wantError: "invalid_request"},
		{name: "repeated parameter", call: tokenCall{contentType: formType, body: form("grant_type", cc, "scope", "a", "scope", "b"), basic: []string{id, secret}},
			wantStatus: 400, wantError: "invalid_request"},
		{name: "malformed form", call: tokenCall{contentType: formType, body: "grant_type=%zz", basic: []string{id, secret}},
			wantStatus: 400, wantError: "invalid_request"},
		{name: "text/plain", call: tokenCall{contentType: "text/plain", body: form("grant_type", cc), basic: []string{id, secret}},
			wantStatus: 400, wantError: "invalid_request"},
		{name: "no content type", call: tokenCall{body: form("grant_type", cc), basic: []string{id, secret}},
			wantStatus: 400, wantError: "invalid_request"},
		{name: "multipart", call: tokenCall{contentType: "multipart/form-data; boundary=x", body: "--x--", basic: []string{id, secret}},
			wantStatus: 400, wantError: "invalid_request"},
		{name: "json array", call: tokenCall{contentType: jsonType, body: `["client_credentials"]`, basic: []string{id, secret}},
			wantStatus: 400, wantError: "invalid_request"},
		{name: "json number member", call: tokenCall{contentType: jsonType, body: `{"grant_type":"client_credentials","scope":1}`, basic: []string{id, secret}},
			wantStatus: 400, wantError: "invalid_request"},
		{name: "json object member", call: tokenCall{contentType: jsonType, body: `{"grant_type":{"a":1}}`, basic: []string{id, secret}},
			wantStatus: 400, wantError: "invalid_request"},
		{name: "json repeated member", call: tokenCall{contentType: jsonType, body: `{"grant_type":"client_credentials","grant_type":"password"}`, basic: []string{id, secret}},
			wantStatus: 400, wantError: "invalid_request"},
		{name: "json trailing data", call: tokenCall{contentType: jsonType, body: `{"grant_type":"client_credentials"} {}`, basic: []string{id, secret}},
			wantStatus: 400, wantError: "invalid_request"},
		{name: "json truncated", call: tokenCall{contentType: jsonType, body: `{"grant_type":"client_credentials"`, basic: []string{id, secret}},
			wantStatus: 400, wantError: "invalid_request"},
		{name: "body too large", call: tokenCall{contentType: formType, body: form("grant_type", cc, "pad", strings.Repeat("x", oauth.MaxTokenRequestBody)), basic: []string{id, secret}},
			wantStatus: 400, wantError: "invalid_request"},
		{name: "GET", call: tokenCall{method: http.MethodGet},
			wantStatus: 405, wantError: "invalid_request"},
		{name: "store failure", call: tokenCall{contentType: formType, body: form("grant_type", cc), basic: []string{"explode", secret}},
			wantStatus: 500, wantError: "server_error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := f.post(t, tt.call)
			if w.Code != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.wantStatus, w.Body)
			}
			h := w.Header()
			if h.Get("Cache-Control") != "no-store" || h.Get("Pragma") != "no-cache" || h.Get("Content-Type") != "application/json" {
				t.Errorf("headers %v", h)
			}
			if got := h.Get("WWW-Authenticate"); (got != "") != tt.challenge || (tt.challenge && !strings.HasPrefix(got, `Basic realm="skygate"`)) {
				t.Errorf("WWW-Authenticate = %q", got)
			}
			if tt.wantError != "" {
				checkErrorBody(t, w.Body.Bytes(), tt.wantError)
				return
			}
			var resp map[string]any
			if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil {
				t.Fatal(err)
			}
			if len(resp) != 4 || resp["token_type"] != "Bearer" || resp["expires_in"] != 3600.0 || resp["scope"] != tt.wantScope {
				t.Fatalf("response %v", resp)
			}
			c := MustVerify(t, f.verifier, resp["access_token"].(string))
			sub := tt.wantSub
			if sub == "" {
				sub = id
			}
			if c.Subject != sub || c.ClientID != sub || c.AccountID == "" ||
				!slices.Equal(c.Scopes, strings.Fields(tt.wantScope)) || len(c.Roles) != 0 {
				t.Fatalf("claims %+v", c)
			}
		})
	}
}

// checkErrorBody checks an RFC 6749 §5.2 body and that nothing internal leaks.
func checkErrorBody(tb testing.TB, body []byte, code string) {
	tb.Helper()
	var e map[string]string
	if err := json.Unmarshal(body, &e); err != nil {
		tb.Fatalf("error body %s: %v", body, err)
	}
	if e["error"] != code || e["error_description"] == "" || len(e) != 2 {
		tb.Fatalf("error body %s, want error %q", body, code)
	}
	for _, leak := range []string{"sql:", ".go:", "goroutine", "on fire"} {
		if strings.Contains(string(body), leak) {
			tb.Fatalf("error body leaks %q: %s", leak, body)
		}
	}
}

func TestErrorStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  *oauth.Error
		want int
	}{
		{oauth.Errorf(oauth.CodeInvalidClient, "x"), 401},
		{oauth.Errorf(oauth.CodeAccessDenied, "x"), 403},
		{oauth.Errorf(oauth.CodeServerError, "x"), 500},
		{oauth.Errorf(oauth.CodeInvalidGrant, "x"), 400},
		{oauth.Errorf(oauth.CodeInvalidScope, "x"), 400},
		{&oauth.Error{Code: oauth.CodeInvalidRequest, Status: 405}, 405},
	}
	for _, tt := range tests {
		if got := tt.err.StatusOf(); got != tt.want {
			t.Errorf("%s: status %d, want %d", tt.err.Code, got, tt.want)
		}
	}
}

// failingGrant answers every exchange with err.
type failingGrant struct{ err error }

func (failingGrant) Type() string { return "client_credentials" }
func (g failingGrant) Exchange(context.Context, *oauth.TokenRequest) (*oauth.TokenResponse, error) {
	return nil, g.err
}

// TestTokenStoreFailures: a store that cannot be reached right now is 503
// temporarily_unavailable with Retry-After; any other failure stays 500 server_error.
func TestTokenStoreFailures(t *testing.T) {
	t.Parallel()
	down := errors.New("connection refused")
	for _, tc := range []struct {
		name   string
		err    error
		status int
		code   string
	}{
		{"database unreachable", fmt.Errorf("lookup: %w", down), 503, "temporarily_unavailable"},
		{"other failure", errors.New("disk on fire"), 500, "server_error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := oauth.NewTokenHandler(nil, failingGrant{tc.err})
			h.Transient = func(err error) bool { return errors.Is(err, down) }
			r := httptest.NewRequest(http.MethodPost, oauth.TokenPath, strings.NewReader(form("grant_type", "client_credentials")))
			r.Header.Set("Content-Type", formType)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			var body map[string]string
			_ = json.Unmarshal(w.Body.Bytes(), &body)
			if w.Code != tc.status || body["error"] != tc.code || (tc.status == 503) != (w.Header().Get("Retry-After") != "") ||
				w.Header().Get("Cache-Control") != "no-store" || strings.Contains(w.Body.String(), "refused") {
				t.Fatalf("%d %v Retry-After %q", w.Code, body, w.Header().Get("Retry-After"))
			}
		})
	}
}
