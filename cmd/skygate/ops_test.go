package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestServeOperations(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, nil))

	for _, f := range []string{"ca.pem", "server.pem", "server-key.pem", "client.pem", "client-key.pem"} {
		if _, err := os.Stat(filepath.Join(s.env["SKYGATE_DATA_DIR"], "pki", f)); err != nil {
			t.Errorf("dev PKI: %v", err)
		}
	}
	for _, tc := range []struct {
		path, contentType string
		status            int
	}{
		{"/healthz", "application/json", 200},
		{"/readyz", "application/json", 200},
		{"/openapi.json", "application/json", 200},
		{"/openapi.yaml", "application/yaml", 200},
		{"/openapi/partner.json", "application/json", 200},
		{"/.well-known/jwks.json", "application/json", 200},
		{"/.well-known/openid-configuration", "application/json", 200},
		{"/.well-known/oauth-authorization-server", "application/json", 200},
		{"/no/such/path", "application/problem+json", 404},
	} {
		resp, body := s.get(tc.path, "", nil)
		if resp.StatusCode != tc.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), tc.contentType) {
			t.Errorf("GET %s = %d %q: %.200s", tc.path, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}

	// /metrics is on the operator listener only, with the health probes; the partner
	// listeners answer it like any unknown path.
	for _, tc := range []struct {
		name             string
		c                *http.Client
		url, contentType string
		status           int
	}{
		{"plain listener", s.client, s.base + "/metrics", "application/problem+json", 404},
		{"mTLS listener", s.mtlsClient, s.mtlsBase + "/metrics", "application/problem+json", 404},
		{"mTLS listener", s.mtlsClient, s.mtlsBase + "/healthz", "application/json", 200},
		{"operator listener", s.opsClient, s.opsBase + "/metrics", "text/plain", 200},
		{"operator listener", s.opsClient, s.opsBase + "/healthz", "application/json", 200},
		{"operator listener", s.opsClient, s.opsBase + "/readyz", "application/json", 200},
		{"operator listener", s.opsClient, s.opsBase + "/openapi.json", "application/problem+json", 404},
		{"operator listener", s.opsClient, s.opsBase + "/v2/catalog/lounges", "application/problem+json", 404},
	} {
		resp, body := s.do(tc.c, http.MethodGet, tc.url, nil, nil)
		if resp.StatusCode != tc.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), tc.contentType) {
			t.Errorf("%s: GET %s = %d %q: %.200s", tc.name, tc.url, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}

	// Metrics of the HTTP layer, the webhook dispatcher and the database pools (SQLite here).
	_, metrics := s.do(s.opsClient, http.MethodGet, s.opsBase+"/metrics", nil, nil)
	for _, series := range []string{`http_server_request_duration_seconds_count{http_request_method="GET",http_response_status_code="404",http_route="unmatched"}`,
		`http_server_request_duration_seconds_bucket{http_request_method="GET",http_response_status_code="200",http_route="/healthz",le="0.005"}`,
		`skygate_rate_limit_rejections_total{limit="account"} 0`, "skygate_webhook_attempts_total", "skygate_webhook_in_flight", "go_goroutines",
		`go_sql_max_idle_closed_total{db_name="sqlite_write"}`, `go_sql_open_connections{db_name="sqlite_read"}`} {
		if !strings.Contains(string(metrics), series) {
			t.Errorf("/metrics lacks %s", series)
		}
	}

	// The router's 405 is problem+json with Allow.
	resp, body := s.do(s.client, http.MethodDelete, s.base+"/oauth/v2/token", nil, nil)
	p := problemOf(t, resp, body)
	if resp.StatusCode != 405 || p["code"] != "MethodNotAllowed" || !strings.Contains(resp.Header.Get("Allow"), "POST") {
		t.Errorf("405: %d %v Allow=%q", resp.StatusCode, p, resp.Header.Get("Allow"))
	}

	// X-Request-ID: echoed when valid, replaced when not.
	resp, _ = s.get("/healthz", "", map[string]string{"X-Request-ID": "trace-1.A_b"})
	if got := resp.Header.Get("X-Request-ID"); got != "trace-1.A_b" {
		t.Errorf("valid X-Request-ID not echoed: %q", got)
	}
	resp, body = s.get("/nope", "", map[string]string{"X-Request-ID": "bad id with spaces"})
	p = problemOf(t, resp, body)
	if got := resp.Header.Get("X-Request-ID"); got == "" || got == "bad id with spaces" || p["request_id"] != got {
		t.Errorf("invalid X-Request-ID: header %q body %v", got, p["request_id"])
	}

	// Discovery names the endpoints under the public URL.
	_, body = s.get("/.well-known/openid-configuration", "", nil)
	var d map[string]any
	if err := json.Unmarshal(body, &d); err != nil || d["issuer"] != testPublicURL || d["token_endpoint"] != testPublicURL+"/oauth/v2/token" {
		t.Errorf("discovery: %v %s", err, body)
	}
	resp, _ = s.get("/.well-known/jwks.json", "", nil)
	if resp.Header.Get("Cache-Control") != "public, max-age=300" {
		t.Errorf("JWKS Cache-Control %q", resp.Header.Get("Cache-Control"))
	}
}

func TestProductionRefusesDevConveniences(t *testing.T) {
	t.Parallel()
	env := testEnv(t, map[string]string{"SKYGATE_ENV": "production", "SKYGATE_MASTER_KEY": ""})
	err := run(t.Context(), []string{"skygate", "serve"}, func(k string) string { return env[k] }, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "SKYGATE_MASTER_KEY") || !strings.Contains(err.Error(), "development PKI") {
		t.Fatalf("production start: %v", err)
	}
}

// TestMigrateCommand: `skygate migrate` prepares an empty database (twice is harmless),
// after which `serve` with SKYGATE_MIGRATE=false starts on it; on a database nobody
// migrated, such a serve refuses to start instead of serving errors.
func TestMigrateCommand(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		env := e.env(t, map[string]string{"SKYGATE_MIGRATE": "false"})
		getenv := func(k string) string {
			if k == "SKYGATE_LOG_LEVEL" {
				return "info"
			}
			return env[k]
		}
		var stderr strings.Builder
		err := run(t.Context(), []string{"skygate", "serve"}, getenv, io.Discard, &stderr)
		if err == nil || !strings.Contains(err.Error(), "skygate migrate") {
			t.Fatalf("serve on an unmigrated database with SKYGATE_MIGRATE=false: %v\n%s", err, stderr.String())
		}
		for range 2 {
			stderr.Reset()
			if err := run(t.Context(), []string{"skygate", "migrate"}, getenv, io.Discard, &stderr); err != nil {
				t.Fatalf("migrate: %v\n%s", err, stderr.String())
			}
			if !strings.Contains(stderr.String(), `"msg":"database migrated"`) {
				t.Errorf("migrate logged:\n%s", stderr.String())
			}
		}
		s := startServer(t, env)
		if resp, body := s.get("/readyz", "", nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("readyz after migrate: %d %s", resp.StatusCode, body)
		}
		if strings.Contains(s.stderr.String(), `"msg":"database migrated"`) {
			t.Error("serve migrated although SKYGATE_MIGRATE=false")
		}
	})
}
