package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

func TestRateLimits(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, map[string]string{
		"SKYGATE_RATE_LIMIT": "0.5", "SKYGATE_RATE_BURST": "3",
		"SKYGATE_TOKEN_RATE_LIMIT": "0.5", "SKYGATE_TOKEN_RATE_BURST": "2",
	}))
	c := s.mustBootstrap("acme", catalogScopes)
	tok := s.mustToken(c, "")
	// The RateLimit fields come once half of the burst is used: the first request
	// leaves 2 of 3 and carries none, the next two leave 1 and 0 and say so.
	for i, want := range []struct{ limit, remaining string }{{"", ""}, {"3", "1"}, {"3", "0"}} {
		resp, _ := s.get("/v2/catalog/lounges?limit=1", tok, nil)
		limit, remaining := resp.Header.Get("RateLimit-Limit"), resp.Header.Get("RateLimit-Remaining")
		if resp.StatusCode != 200 || limit != want.limit || remaining != want.remaining {
			t.Fatalf("request %d: %d limit %q remaining %q, want 200 %q %q", i, resp.StatusCode, limit, remaining, want.limit, want.remaining)
		}
		if (resp.Header.Get("RateLimit-Reset") == "") != (want.limit == "") {
			t.Errorf("request %d: RateLimit-Reset %q", i, resp.Header.Get("RateLimit-Reset"))
		}
	}
	resp, body := s.get("/v2/catalog/lounges?limit=1", tok, nil)
	p := problemOf(t, resp, body)
	if resp.StatusCode != 429 || p["code"] != "RateLimited" || resp.Header.Get("Retry-After") != "2" || resp.Header.Get("RateLimit-Remaining") != "0" {
		t.Fatalf("over the limit: %d %v Retry-After %q", resp.StatusCode, p, resp.Header.Get("Retry-After"))
	}
	// Another account has its own allowance.
	if resp, _ := s.get("/v2/catalog/lounges?limit=1", s.mustToken(s.mustBootstrap("globex", catalogScopes), ""), nil); resp.StatusCode != 200 {
		t.Errorf("other account: %d", resp.StatusCode)
	}
	// The token endpoint limits per client: the first mustToken used one of two.
	s.mustToken(c, "")
	resp, body = s.do(s.client, http.MethodPost, s.base+"/oauth/v2/token", strings.NewReader("grant_type=client_credentials"),
		map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Authorization": basic(c)})
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" || problemOf(t, resp, body)["code"] != "RateLimited" {
		t.Errorf("token over the limit: %d %s", resp.StatusCode, body)
	}
	// /metrics counts each refusal under its limit.
	metrics := s.scrape()
	for _, series := range []string{
		`skygate_rate_limit_rejections_total{limit="account"} 1`, `skygate_rate_limit_rejections_total{limit="token_client"} 1`,
		`skygate_rate_limit_rejections_total{limit="token_source"} 0`, `skygate_rate_limit_rejections_total{limit="webhook_test"} 0`,
		`skygate_rate_limit_rejections_total{limit="webhook_recover"} 0`,
		`http_server_request_duration_seconds_count{http_request_method="GET",http_response_status_code="429",http_route="/v2/catalog/lounges"} 1`,
	} {
		if !strings.Contains(metrics, series+"\n") {
			t.Errorf("/metrics lacks %s", series)
		}
	}
}

// TestRateLimitsSharedThroughRedis runs two replicas on one PostgreSQL schema and one
// Redis: their limits add up to one allowance.
func TestRateLimitsSharedThroughRedis(t *testing.T) {
	t.Parallel()
	redisURL := os.Getenv("SKYGATE_TEST_REDIS_URL")
	if redisURL == "" {
		t.Skip("SKYGATE_TEST_REDIS_URL is not set; skipping the shared rate limit test")
	}
	env := engines[1].env(t, map[string]string{"SKYGATE_REDIS_URL": redisURL, "SKYGATE_RATE_LIMIT": "0.5", "SKYGATE_RATE_BURST": "4"})
	a := startServer(t, env)
	envB := make(map[string]string, len(env))
	for k, v := range env {
		envB[k] = v
	}
	b := startServer(t, envB)
	tok := a.mustToken(a.mustBootstrap("acme", catalogScopes), "")
	allowed := 0
	for i := range 8 {
		s := a
		if i%2 == 1 {
			s = b
		}
		if resp, _ := s.get("/v2/catalog/lounges?limit=1", tok, nil); resp.StatusCode == 200 {
			allowed++
		}
	}
	if allowed != 4 {
		t.Fatalf("two replicas allowed %d requests, want the shared burst of 4", allowed)
	}
}

// clientFrom returns a client whose connections come from ip (an address of the
// loopback network, all of which reach the test server), validating every answer
// against the OpenAPI document.
func (s *testServer) clientFrom(ip string) *http.Client {
	s.t.Helper()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}).DialContext
	return &http.Client{Transport: newValidatingTransport(s.t, tr, s.base, s.mtlsBase)}
}

// tokenAttempt is one token request: form or JSON body, an optional raw HTTP Basic
// user and password (sent as they are), extra headers.
type tokenAttempt struct {
	form        url.Values
	json        string
	user, pass  string
	header      map[string]string
	description string
}

func (s *testServer) attempt(c *http.Client, a tokenAttempt) (*http.Response, []byte) {
	s.t.Helper()
	h := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	body := a.form.Encode()
	if a.json != "" {
		h["Content-Type"], body = "application/json", a.json
	}
	if a.user != "" {
		h["Authorization"] = "Basic " + base64.StdEncoding.EncodeToString([]byte(a.user+":"+a.pass))
	}
	for k, v := range a.header {
		h[k] = v
	}
	return s.do(c, http.MethodPost, s.base+"/oauth/v2/token", strings.NewReader(body), h)
}

// postCredentials is a client_credentials request by client_secret_post.
func postCredentials(c credentials) tokenAttempt {
	return tokenAttempt{form: url.Values{"grant_type": {"client_credentials"}, "client_id": {c.ClientID}, "client_secret": {c.ClientSecret}}}
}

// basicCredentials is a client_credentials request by client_secret_basic.
func basicCredentials(c credentials) tokenAttempt {
	return tokenAttempt{form: url.Values{"grant_type": {"client_credentials"}}, user: url.QueryEscape(c.ClientID), pass: url.QueryEscape(c.ClientSecret)}
}

// wantRateLimited fails unless the answer is the 429 of an allowance of burst limit.
func wantRateLimited(t *testing.T, what string, resp *http.Response, body []byte, limit string) {
	t.Helper()
	if resp.StatusCode != 429 || problemOf(t, resp, body)["code"] != "RateLimited" || resp.Header.Get("Retry-After") == "" ||
		resp.Header.Get("RateLimit-Limit") != limit || resp.Header.Get("RateLimit-Remaining") != "0" || resp.Header.Get("RateLimit-Reset") == "" {
		t.Fatalf("%s: %d RateLimit-Limit %q Retry-After %q %s, want 429 RateLimited of a burst of %s", what, resp.StatusCode,
			resp.Header.Get("RateLimit-Limit"), resp.Header.Get("Retry-After"), body, limit)
	}
}

// TestTokenLimitsBySourceThenClient: the token endpoint counts unauthenticated work per
// source address and authenticated requests per client, so a partner's client_id is no
// handle on its allowance, a claimed username no escape from the source's, and
// partners behind one address do not share one.
func TestTokenLimitsBySourceThenClient(t *testing.T) {
	t.Parallel()
	forEachEngine(t, testTokenLimitsBySourceThenClient)
}

func testTokenLimitsBySourceThenClient(t *testing.T, e engine) {
	// One request every 100 s: nothing refills while the test runs. The source's burst
	// (4) differs from the client's (3), so the RateLimit fields tell which one spoke.
	s := startServer(t, e.env(t, map[string]string{
		"SKYGATE_TOKEN_SOURCE_RATE_LIMIT": "0.01", "SKYGATE_TOKEN_SOURCE_RATE_BURST": "4",
		"SKYGATE_TOKEN_RATE_LIMIT": "0.01", "SKYGATE_TOKEN_RATE_BURST": "3",
	}))

	t.Run("wrong secrets from elsewhere do not lock the partner out", func(t *testing.T) {
		victim := s.mustBootstrap("victim", catalogScopes)
		attacker := s.clientFrom("127.0.0.2")
		wrong := victim
		wrong.ClientSecret = "sks_guessed"
		type answer struct {
			resp *http.Response
			body []byte
		}
		var attempts []answer
		for i := range 8 {
			a := basicCredentials(wrong)
			if i%2 == 1 {
				a = postCredentials(wrong)
			}
			resp, body := s.attempt(attacker, a)
			attempts = append(attempts, answer{resp, body})
		}
		partner := s.clientFrom("127.0.0.3")
		for i := range 3 {
			if resp, body := s.attempt(partner, basicCredentials(victim)); resp.StatusCode != 200 {
				t.Fatalf("the partner's request %d after someone else's wrong secrets: %d %s", i, resp.StatusCode, body)
			}
		}
		// The attacker's address was refused once its four were used.
		for i, a := range attempts {
			if i < 4 && a.resp.StatusCode != 401 {
				t.Errorf("attempt %d: %d %s", i, a.resp.StatusCode, a.body)
			}
			if i >= 4 {
				wantRateLimited(t, fmt.Sprint("attempt ", i), a.resp, a.body, "4")
			}
		}
	})

	t.Run("no claimed identity escapes the source's allowance", func(t *testing.T) {
		c := s.mustBootstrap("escapee", catalogScopes)
		from := s.clientFrom("127.0.0.4")
		escaped := ""
		for _, b := range []byte(c.ClientID) {
			escaped += fmt.Sprintf("%%%02X", b)
		}
		grant := url.Values{"grant_type": {"client_credentials"}}
		variants := []tokenAttempt{
			{form: grant, user: c.ClientID, pass: "wrong", description: "the client_id"},
			{form: grant, user: escaped, pass: "wrong", description: "the client_id percent-encoded"},
			{form: grant, user: c.ClientID + "%20", pass: "wrong", description: "the client_id and an encoded space"},
			{form: grant, user: "made-up-1", pass: "wrong", description: "a made-up username"},
			{form: grant, user: strings.Repeat("u", 4000), pass: "wrong", description: "a long username"},
			{form: url.Values{"grant_type": {"client_credentials"}, "client_id": {"made-up-2"}, "client_secret": {"wrong"}}, description: "a made-up client_id in the body"},
			{json: `{"grant_type":"client_credentials","client_id":"` + c.ClientID + `x","client_secret":"wrong"}`, description: "a JSON body"},
			{form: url.Values{"grant_type": {"authorization_code"}, "code": {"forged"}, "code_verifier": {strings.Repeat("v", 43)}, "redirect_uri": {testPublicURL + "/admin/callback"}}, description: "an employee code"},
			{form: grant, description: "no client at all"},
		}
		for i, a := range variants[:4] {
			if resp, body := s.attempt(from, a); resp.StatusCode != 401 {
				t.Fatalf("attempt %d (%s): %d %s", i, a.description, resp.StatusCode, body)
			}
		}
		for _, a := range variants {
			resp, body := s.attempt(from, a)
			wantRateLimited(t, a.description, resp, body, "4")
		}
	})

	t.Run("partners behind one address count on their own", func(t *testing.T) {
		p1, p2, p3 := s.mustBootstrap("nat-1", catalogScopes), s.mustBootstrap("nat-2", catalogScopes), s.mustBootstrap("nat-3", catalogScopes)
		nat := s.clientFrom("127.0.0.5")
		// Nine successful requests from one address whose allowance is four: each
		// counts against its client only (three each, their whole burst).
		for i := range 3 {
			for j, a := range []tokenAttempt{postCredentials(p1), postCredentials(p2), basicCredentials(p3)} {
				resp, body := s.attempt(nat, a)
				if resp.StatusCode != 200 {
					t.Fatalf("round %d, partner %d: %d %s", i, j+1, resp.StatusCode, body)
				}
				// The RateLimit fields are the client's: 3 - (i+1) left of 3.
				if lim, rem := resp.Header.Get("RateLimit-Limit"), resp.Header.Get("RateLimit-Remaining"); i > 0 && (lim != "3" || rem != fmt.Sprint(2-i)) {
					t.Fatalf("round %d, partner %d: RateLimit-Limit %q Remaining %q, want the client's 3 and %d", i, j+1, lim, rem, 2-i)
				}
			}
		}
		for j, a := range []tokenAttempt{postCredentials(p1), postCredentials(p2), basicCredentials(p3)} {
			resp, body := s.attempt(nat, a)
			wantRateLimited(t, fmt.Sprint("partner ", j+1, " over its burst"), resp, body, "3")
		}
		// The address's allowance for unauthenticated work is whole.
		wrong := p1
		wrong.ClientSecret = "sks_wrong"
		for i := range 4 {
			if resp, body := s.attempt(nat, postCredentials(wrong)); resp.StatusCode != 401 {
				t.Fatalf("failure %d from the shared address: %d %s", i, resp.StatusCode, body)
			}
		}
		resp, body := s.attempt(nat, postCredentials(wrong))
		wantRateLimited(t, "the fifth failure", resp, body, "4")
	})
}

// logLines returns the JSON log lines of the server's stderr that match, once at least
// n of them are there (the log is written in batches), or fails.
func (s *testServer) logLines(t *testing.T, n int, match func(map[string]any) bool) []map[string]any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var found []map[string]any
		for _, line := range strings.Split(s.stderr.String(), "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(line), &m) == nil && match(m) {
				found = append(found, m)
			}
		}
		if len(found) >= n || time.Now().After(deadline) {
			return found
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestFailedClientAuthenticationLogged: each failed client authentication is one warn
// line with the client_id as sent (cut to 128 bytes), the source address and the
// request id, never the secret; every access-log line names the source, which
// X-Forwarded-For sets from a trusted proxy only.
func TestFailedClientAuthenticationLogged(t *testing.T) {
	t.Parallel()
	forEachEngine(t, testFailedClientAuthenticationLogged)
}

func testFailedClientAuthenticationLogged(t *testing.T, e engine) {
	s := startServer(t, e.env(t, map[string]string{"SKYGATE_TRUSTED_PROXIES": "127.0.0.7/32"}))
	c := s.mustBootstrap("acme", catalogScopes)
	const secret1, secret2 = "sks_never-log-this-one", "sks_nor-this-one"
	longID := `evil"i` + "\n" + strings.Repeat("é", 200) // cut at 128 bytes inside an é
	direct, proxy := s.clientFrom("127.0.0.8"), s.clientFrom("127.0.0.7")
	for _, tc := range []struct {
		client *http.Client
		a      tokenAttempt
		status int
	}{
		{direct, tokenAttempt{form: url.Values{"grant_type": {"client_credentials"}}, user: url.QueryEscape(longID), pass: secret1,
			header: map[string]string{"X-Request-ID": "failed-auth-1", "X-Forwarded-For": "198.51.100.1"}}, 401},
		{proxy, tokenAttempt{form: url.Values{"grant_type": {"client_credentials"}, "client_id": {c.ClientID}, "client_secret": {secret2}},
			header: map[string]string{"X-Request-ID": "failed-auth-2", "X-Forwarded-For": "203.0.113.9, 198.51.100.2"}}, 401},
		{direct, tokenAttempt{form: basicCredentials(c).form, user: basicCredentials(c).user, pass: basicCredentials(c).pass,
			header: map[string]string{"X-Request-ID": "auth-ok"}}, 200},
	} {
		if resp, body := s.attempt(tc.client, tc.a); resp.StatusCode != tc.status {
			t.Fatalf("%s: %d %s", tc.a.header["X-Request-ID"], resp.StatusCode, body)
		}
	}

	failed := s.logLines(t, 2, func(m map[string]any) bool { return m["msg"] == "client authentication failed" })
	want := map[string][2]string{
		"failed-auth-1": {longID[:128], "127.0.0.8"},
		"failed-auth-2": {c.ClientID, "198.51.100.2"},
	}
	if len(failed) != 2 {
		t.Fatalf("%d failed-authentication lines, want 2: %v", len(failed), failed)
	}
	for _, m := range failed {
		w, ok := want[fmt.Sprint(m["request_id"])]
		if !ok || m["level"] != "WARN" || m["client_id"] != strings.ToValidUTF8(w[0], "\uFFFD") || m["source"] != w[1] {
			t.Errorf("failed-authentication line %v, want level WARN, client_id %.40q…, source %s", m, w[0], w[1])
		}
		delete(want, fmt.Sprint(m["request_id"]))
	}
	access := s.logLines(t, 3, func(m map[string]any) bool {
		id, _ := m["request_id"].(string)
		return m["msg"] == "request" && (strings.HasPrefix(id, "failed-auth-") || id == "auth-ok")
	})
	sources := map[string]string{}
	for _, m := range access {
		sources[fmt.Sprint(m["request_id"])] = fmt.Sprint(m["source"])
	}
	if sources["failed-auth-1"] != "127.0.0.8" || sources["failed-auth-2"] != "198.51.100.2" || sources["auth-ok"] != "127.0.0.8" {
		t.Errorf("access-log sources %v: the spoofed header counted, or a trusted proxy's did not", sources)
	}
	for _, secret := range []string{secret1, secret2, c.ClientSecret} {
		if strings.Contains(s.stderr.String(), secret) {
			t.Errorf("the log contains a client secret")
		}
	}
}

// TestWebhookTestLimited: each subscription may send ten test events a minute; the
// eleventh is 429 with Retry-After, counted only once the subscription is found, so
// another account's id stays 404 and another subscription has its own allowance.
func TestWebhookTestLimited(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		scopes := []string{skygate.ScopeWebhooksRead, skygate.ScopeWebhooksWrite}
		rc := newReceiver(t)
		subscribe := func(account string) (tok, id string) {
			tok = s.mustToken(s.mustBootstrap(account, scopes), "")
			resp, body := s.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks", tok, `{"url":"`+rc.srv.URL+`/`+account+`","secret":"a-very-long-shared-secret-0001"}`, nil)
			if resp.StatusCode != 201 {
				t.Fatalf("create: %d %s", resp.StatusCode, body)
			}
			return tok, mustJSON(t, body)["id"].(string)
		}
		tokA, idA := subscribe("acme")
		tokB, idB := subscribe("globex")
		test := func(tok, id string) (*http.Response, []byte) {
			return s.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks/"+id+"/test", tok, "", nil)
		}
		for i := range 10 {
			if resp, body := test(tokA, idA); resp.StatusCode != 202 {
				t.Fatalf("test %d: %d %s", i, resp.StatusCode, body)
			}
		}
		resp, body := test(tokA, idA)
		wantRateLimited(t, "the eleventh test", resp, body, "10")
		// Ten a minute: one comes back every 6 s, so the wait is at most 6 s; less when the
		// ten calls above took over a second (the server's clock is real).
		if n, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || n < 1 || n > 6 {
			t.Errorf("Retry-After %q, want 1 to 6 (ten a minute)", resp.Header.Get("Retry-After"))
		}
		if want := `skygate_rate_limit_rejections_total{limit="webhook_test"} 1` + "\n"; !strings.Contains(s.scrape(), want) {
			t.Errorf("/metrics lacks %s", want)
		}
		if resp, body := test(tokB, idA); resp.StatusCode != 404 || problemOf(t, resp, body)["code"] != "NotFound" {
			t.Errorf("another account's subscription: %d %s", resp.StatusCode, body)
		}
		if resp, body := test(tokB, idB); resp.StatusCode != 202 {
			t.Errorf("another subscription: %d %s", resp.StatusCode, body)
		}
	})
}

// TestWebhookRecoverLimited: each subscription may recover six times a minute; the
// seventh call is 429 with Retry-After, counted only once the subscription is found,
// so another account's id stays 404.
func TestWebhookRecoverLimited(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		scopes := []string{skygate.ScopeWebhooksRead, skygate.ScopeWebhooksWrite}
		rc := newReceiver(t)
		tok := s.mustToken(s.mustBootstrap("acme", scopes), "")
		resp, body := s.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks", tok, `{"url":"`+rc.srv.URL+`/acme","secret":"a-very-long-shared-secret-0001"}`, nil)
		if resp.StatusCode != 201 {
			t.Fatalf("create: %d %s", resp.StatusCode, body)
		}
		id := mustJSON(t, body)["id"].(string)
		since := `{"since":"` + time.Now().Add(-time.Hour).UTC().Format(time.RFC3339) + `"}`
		recoverAs := func(tok string) (*http.Response, []byte) {
			return s.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks/"+id+"/recover", tok, since, nil)
		}
		for i := range 6 {
			if resp, body := recoverAs(tok); resp.StatusCode != 202 {
				t.Fatalf("recover %d: %d %s", i, resp.StatusCode, body)
			}
		}
		resp, body = recoverAs(tok)
		wantRateLimited(t, "the seventh recovery", resp, body, "6")
		if n, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || n < 1 || n > 10 {
			t.Errorf("Retry-After %q, want 1 to 10 (six a minute)", resp.Header.Get("Retry-After"))
		}
		if want := `skygate_rate_limit_rejections_total{limit="webhook_recover"} 1` + "\n"; !strings.Contains(s.scrape(), want) {
			t.Errorf("/metrics lacks %s", want)
		}
		other := s.mustToken(s.mustBootstrap("globex", scopes), "")
		if resp, body := recoverAs(other); resp.StatusCode != 404 || problemOf(t, resp, body)["code"] != "NotFound" {
			t.Errorf("another account's subscription: %d %s", resp.StatusCode, body)
		}
	})
}
