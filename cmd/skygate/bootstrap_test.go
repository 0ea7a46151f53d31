package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/skygate/skygate"
)

// bootstrapRun runs `skygate bootstrap` against the server's database and returns what
// it printed and its error.
func (s *testServer) bootstrapRun(args ...string) (string, error) {
	var out bytes.Buffer
	err := run(context.Background(), append([]string{"skygate", "bootstrap"}, args...), func(k string) string { return s.env[k] }, &out, io.Discard)
	return out.String(), err
}

// auditOf lists the audit records of the account as "actor action", oldest first.
func (s *testServer) auditOf(accountID string) []string {
	s.t.Helper()
	_, body := s.adminCall(http.MethodGet, "/audit-events?limit=500&account_id="+url.QueryEscape(accountID), "")
	var page struct {
		Data []skygate.AuditEvent `json:"data"`
	}
	if err := json.Unmarshal(body, &page); err != nil {
		s.t.Fatalf("audit list %.300s: %v", body, err)
	}
	var out []string
	for _, e := range slices.Backward(page.Data) {
		out = append(out, e.Actor+" "+e.Action)
	}
	return out
}

// TestBootstrapConcurrently: bootstraps of one account name that run at once make one
// account and one application between them, audited once each with the actor
// bootstrap; exactly one of them shows the secret, and it works.
func TestBootstrapConcurrently(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		const n = 4
		var (
			wg    sync.WaitGroup
			mu    sync.Mutex
			creds []credentials
		)
		for range n {
			wg.Go(func() {
				out, err := s.bootstrapRun("--account", "twice", "--scopes", strings.Join(catalogScopes, " "))
				var c credentials
				if err == nil {
					err = json.Unmarshal([]byte(out), &c)
				}
				if err != nil {
					t.Errorf("bootstrap: %v (%q)", err, out)
					return
				}
				mu.Lock()
				creds = append(creds, c)
				mu.Unlock()
			})
		}
		wg.Wait()
		if len(creds) != n {
			t.FailNow()
		}
		var shown []credentials
		for _, c := range creds {
			if c.AccountID != creds[0].AccountID || c.ClientID != creds[0].ClientID {
				t.Errorf("bootstraps disagree: %+v", creds)
			}
			if c.ClientSecret != "" {
				shown = append(shown, c)
			}
		}
		if len(shown) != 1 {
			t.Fatalf("%d bootstraps showed a secret, want one: %+v", len(shown), creds)
		}
		s.mustToken(shown[0], "")
		_, body := s.adminCall(http.MethodGet, "/accounts/"+creds[0].AccountID+"/applications", "")
		if !strings.Contains(string(body), `"total":1`) {
			t.Errorf("applications of the account: %s", body)
		}
		_, body = s.adminCall(http.MethodGet, "/accounts?limit=500", "")
		if c := strings.Count(string(body), `"name":"twice"`); c != 1 {
			t.Errorf("%d accounts named twice: %s", c, body)
		}
		if got, want := s.auditOf(creds[0].AccountID), []string{"bootstrap account.create", "bootstrap application.create"}; !slices.Equal(got, want) {
			t.Errorf("audit %q, want %q", got, want)
		}

		// A rotation is audited as the admin API's is.
		if rotated := s.mustBootstrap("twice", catalogScopes, "--rotate-secret", "--revoke-tokens"); rotated.ClientSecret == "" {
			t.Fatalf("rotate: %+v", rotated)
		}
		if got := s.auditOf(creds[0].AccountID); len(got) != 3 || got[2] != "bootstrap application.rotate_secret" {
			t.Errorf("audit after a rotation: %q", got)
		}
	})
}

// TestBootstrapValidatesAsTheAdminAPI: bootstrap refuses what the admin API refuses,
// naming the flags, and writes nothing.
func TestBootstrapValidatesAsTheAdminAPI(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, nil))
	scopes := strings.Join(catalogScopes, " ")
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"no account", []string{"--scopes", scopes}, []string{"--account: is required"}},
		{"blank account", []string{"--account", "  ", "--scopes", scopes}, []string{"--account: is required"}},
		{"long account", []string{"--account", strings.Repeat("n", 129), "--scopes", scopes}, []string{"--account: must be at most 128 characters"}},
		{"control character", []string{"--account", "a\tb", "--scopes", scopes}, []string{"--account: must not contain control characters"}},
		{"no scopes", []string{"--account", "acme"}, []string{"--scopes: must list at least one scope"}},
		{"admin scope", []string{"--account", "acme", "--scopes", skygate.ScopeAdminAccounts}, []string{"--scopes[0]: unknown B2B scope", "known scopes:"}},
		{"bad thumbprint", []string{"--account", "acme", "--scopes", scopes, "--client-cert-sha256", "nope"}, []string{"--client-cert-sha256: must be the base64url"}},
		{"everything", []string{"--scopes", "root", "--client-cert-sha256", "x"}, []string{"--account", "--scopes[0]", "--client-cert-sha256"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := s.bootstrapRun(tc.args...)
			if err == nil || out != "" {
				t.Fatalf("bootstrap %q: %v, printed %q", tc.args, err, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	_, body := s.adminCall(http.MethodGet, "/accounts?limit=500", "")
	if strings.Contains(string(body), `"name":"acme"`) {
		t.Errorf("a refused bootstrap created an account: %s", body)
	}
	_, body = s.adminCall(http.MethodGet, "/audit-events?actor=bootstrap", "")
	if !strings.Contains(string(body), `"total":0`) {
		t.Errorf("a refused bootstrap left audit records: %s", body)
	}
}
