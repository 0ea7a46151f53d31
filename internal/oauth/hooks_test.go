package oauth_test

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/skygate/skygate/internal/login"
	"github.com/skygate/skygate/internal/oauth"
)

// recordingHooks records what the token handler tells its TokenHooks; refuse, when set,
// is what Authenticated answers.
type recordingHooks struct {
	mu            sync.Mutex
	authenticated []string
	failed        []string
	refused       []error
	refuse        error
}

func (h *recordingHooks) Authenticated(w http.ResponseWriter, r *http.Request, clientID string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.authenticated = append(h.authenticated, clientID)
	return h.refuse
}

func (h *recordingHooks) WriteRefusal(w http.ResponseWriter, r *http.Request, err error) {
	h.mu.Lock()
	h.refused = append(h.refused, err)
	h.mu.Unlock()
	w.WriteHeader(http.StatusTooManyRequests)
	_, _ = w.Write([]byte("refused"))
}

func (h *recordingHooks) AuthenticationFailed(w http.ResponseWriter, r *http.Request, clientID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.failed = append(h.failed, clientID)
}

// TestTokenHooks: the hooks hear of every client a request authenticated as (the
// application's client_id, before the token is issued), may refuse it, and hear of
// every invalid_client answer with the client_id as it was sent, never the secret.
func TestTokenHooks(t *testing.T) {
	t.Parallel()
	f := setup(t)
	id, secret := f.MustApplication(t, appOptions{})
	suspID, suspSecret := f.MustApplication(t, appOptions{Suspended: true})
	f.apps.failClientID = "explode"
	f.handler = oauth.NewTokenHandler(nil, oauth.NewClientCredentialsGrant(
		oauth.NewClientAuthenticator(f.appCache, f.hasher), f.issuer), login.NewGrant(login.GrantConfig{Issuer: f.issuer}))
	cc := "client_credentials"
	long := strings.Repeat("x", 1000)

	for _, tc := range []struct {
		name          string
		call          tokenCall
		refuse        error
		status        int
		authenticated []string
		failed        []string
	}{
		{"basic", tokenCall{contentType: formType, body: form("grant_type", cc), basic: []string{id, secret}},
			nil, 200, []string{id}, nil},
		{"post", tokenCall{contentType: jsonType, body: jsonBody(map[string]any{"grant_type": cc, "client_id": id, "client_secret": secret})},
			nil, 200, []string{id}, nil},
		{"refused", tokenCall{contentType: formType, body: form("grant_type", cc), basic: []string{id, secret}},
			errors.New("over the limit"), 429, []string{id}, nil},
		{"suspended account: authenticated, then invalid_grant", tokenCall{contentType: formType, body: form("grant_type", cc), basic: []string{suspID, suspSecret}},
			nil, 400, []string{suspID}, nil},
		{"wrong secret", tokenCall{contentType: formType, body: form("grant_type", cc), basic: []string{id, "sks_wrong"}},
			nil, 401, nil, []string{id}},
		{"unknown client in the body", tokenCall{contentType: formType, body: form("grant_type", cc, "client_id", "nobody", "client_secret", "sks_x")},
			nil, 401, nil, []string{"nobody"}},
		{"percent-encoded username", tokenCall{contentType: formType, body: form("grant_type", cc), basic: []string{"%41" + id, secret}},
			nil, 401, nil, []string{"%41" + id}},
		{"long client_id, passed on whole", tokenCall{contentType: formType, body: form("grant_type", cc), basic: []string{long, "sks_x"}},
			nil, 401, nil, []string{long}},
		{"no secret", tokenCall{contentType: formType, body: form("grant_type", cc, "client_id", id)},
			nil, 401, nil, []string{id}},
		{"malformed Basic: the raw user", tokenCall{contentType: formType, body: form("grant_type", cc), authHeader: "Basic " + base64.StdEncoding.EncodeToString([]byte("ab%zz:secret"))},
			nil, 401, nil, []string{"ab%zz"}},
		{"public client sending a secret", tokenCall{contentType: formType, body: form("grant_type", "authorization_code", "client_id", "skygate-admin-console", "client_secret", "s")},
			nil, 401, nil, []string{"skygate-admin-console"}},
		{"store failure is no failed authentication", tokenCall{contentType: formType, body: form("grant_type", cc), basic: []string{"explode", "sks_x"}},
			nil, 500, nil, nil},
		{"invalid_request is none either", tokenCall{contentType: formType, body: form("grant_type", cc, "grant_type", cc), basic: []string{id, "sks_x"}},
			nil, 400, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &recordingHooks{refuse: tc.refuse}
			f.handler.Hooks = h
			w := f.post(t, tc.call)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.status, w.Body)
			}
			if !equalStrings(h.authenticated, tc.authenticated) || !equalStrings(h.failed, tc.failed) {
				t.Errorf("authenticated %.40q, failed %.40q; want %.40q, %.40q", h.authenticated, h.failed, tc.authenticated, tc.failed)
			}
			if tc.refuse != nil {
				if len(h.refused) != 1 || h.refused[0] != tc.refuse || w.Body.String() != "refused" {
					t.Errorf("refusal %v, body %s", h.refused, w.Body)
				}
			} else if len(h.refused) != 0 {
				t.Errorf("refused %v", h.refused)
			}
		})
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
