package main

import (
	"net/http"
	"os"
	"strings"
	"testing"
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
