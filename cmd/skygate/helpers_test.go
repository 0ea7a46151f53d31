package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/oauth"
	"github.com/skygate/skygate/internal/seal"
)

// mustBootstrap runs `skygate bootstrap` against the server's database and returns the
// credentials it prints.
func (s *testServer) mustBootstrap(account string, scopes []string, extra ...string) credentials {
	s.t.Helper()
	var out bytes.Buffer
	args := append([]string{"skygate", "bootstrap", "--account", account, "--scopes", strings.Join(scopes, " ")}, extra...)
	if err := run(context.Background(), args, func(k string) string { return s.env[k] }, &out, io.Discard); err != nil {
		s.t.Fatalf("bootstrap: %v", err)
	}
	var c credentials
	if err := json.Unmarshal(out.Bytes(), &c); err != nil {
		s.t.Fatalf("bootstrap output %q: %v", out.String(), err)
	}
	return c
}

// tokenResponse is the body of a successful token request.
type tokenResponse struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int    `json:"expires_in"`
	Scope       string `json:"scope"`
}

// mustToken obtains a client_credentials token (client_secret_basic).
func (s *testServer) mustToken(c credentials, scope string) string {
	s.t.Helper()
	resp, body := s.tokenCall(c, scope)
	var tr tokenResponse
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &tr) != nil {
		s.t.Fatalf("token: status %d %s", resp.StatusCode, body)
	}
	return tr.AccessToken
}

// tokenCall asks for a client_credentials token (client_secret_basic) and returns the
// answer whatever it is.
func (s *testServer) tokenCall(c credentials, scope string) (*http.Response, []byte) {
	s.t.Helper()
	form := url.Values{"grant_type": {"client_credentials"}}
	if scope != "" {
		form.Set("scope", scope)
	}
	return s.oauthCall("/oauth/v2/token", c, form)
}

// openStore opens the server's database from the test, as a second process would.
func (s *testServer) openStore() database {
	s.t.Helper()
	cfg := s.config()
	box, err := seal.New(cfg.MasterKey)
	if err != nil {
		s.t.Fatal(err)
	}
	db, err := openStore(context.Background(), cfg, box, nil)
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { db.Close() })
	return db
}

// keyManager opens the server's signing keys with a clock of the test's choosing, to
// mint tokens the server did not issue (expired, other audience, …).
func (s *testServer) keyManager(db skygate.KeyStore, clock skygate.Clock) *oauth.KeyManager {
	s.t.Helper()
	box, err := seal.New(s.config().MasterKey)
	if err != nil {
		s.t.Fatal(err)
	}
	km := oauth.NewKeyManager(db, box, clock, oauth.KeyManagerOptions{})
	if err := km.Reload(context.Background()); err != nil {
		s.t.Fatal(err)
	}
	return km
}

// mintToken signs claims with the server's current key at the clock's time, for
// audience aud.
func (s *testServer) mintToken(km *oauth.KeyManager, clock skygate.Clock, aud string, c oauth.Claims) string {
	s.t.Helper()
	iss, err := oauth.NewIssuer(km, oauth.IssuerConfig{Issuer: testPublicURL, Audience: aud, TTL: time.Hour, Clock: clock})
	if err != nil {
		s.t.Fatal(err)
	}
	tok, _, err := iss.Issue(c)
	if err != nil {
		s.t.Fatal(err)
	}
	return tok
}

// get sends a GET with a bearer token and extra headers.
func (s *testServer) get(path, token string, header map[string]string) (*http.Response, []byte) {
	s.t.Helper()
	h := map[string]string{}
	for k, v := range header {
		h[k] = v
	}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	return s.do(s.client, http.MethodGet, s.base+path, nil, h)
}

// problemOf decodes a problem+json body.
func problemOf(tb testing.TB, resp *http.Response, body []byte) map[string]any {
	tb.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
		tb.Fatalf("Content-Type %q, body %s", ct, body)
	}
	var p map[string]any
	if err := json.Unmarshal(body, &p); err != nil {
		tb.Fatal(err)
	}
	return p
}

// pemBlock returns the DER bytes of the first PEM block.
func pemBlock(tb testing.TB, data []byte) []byte {
	tb.Helper()
	b, _ := pem.Decode(data)
	if b == nil {
		tb.Fatal("no PEM block")
	}
	return b.Bytes
}

// basic is the HTTP Basic Authorization value for the credentials.
func basic(c credentials) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(c.ClientID)+":"+url.QueryEscape(c.ClientSecret)))
}
