package httpapi

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"slices"
	"strings"
	"testing"
)

// TestOpsListener: /metrics is served by the operator handler only; the partner
// handler answers it like any unknown path. Health probes are on both, and the
// operator handler serves nothing else.
func TestOpsListener(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	s.deps.Ready = map[string]func(context.Context) error{"database": func(context.Context) error { return nil }}
	ops := s.Ops()
	if ops == nil {
		t.Fatal("no operator handler")
	}
	get := func(h http.Handler, path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		return rec
	}
	// A request on the partner handler first, so that its series exist.
	get(s, "/healthz")
	for _, tc := range []struct {
		name        string
		h           http.Handler
		path        string
		status      int
		contentType string
	}{
		{"partner /metrics", s, "/metrics", 404, "application/problem+json"},
		{"partner /healthz", s, "/healthz", 200, "application/json"},
		{"partner /readyz", s, "/readyz", 200, "application/json"},
		{"ops /metrics", ops, "/metrics", 200, "text/plain"},
		{"ops /healthz", ops, "/healthz", 200, "application/json"},
		{"ops /readyz", ops, "/readyz", 200, "application/json"},
		{"ops, an API route", ops, "/v2/catalog/lounges", 404, "application/problem+json"},
		{"ops, an unknown path", ops, "/nope", 404, "application/problem+json"},
	} {
		rec := get(tc.h, tc.path)
		if rec.Code != tc.status || !strings.HasPrefix(rec.Header().Get("Content-Type"), tc.contentType) || rec.Header().Get("X-Request-ID") == "" {
			t.Errorf("%s: %d %q X-Request-ID %q: %.200s", tc.name, rec.Code, rec.Header().Get("Content-Type"), rec.Header().Get("X-Request-ID"), rec.Body)
		}
	}
	// The operator's /metrics counts the partner listeners' requests.
	if body := get(ops, "/metrics").Body.String(); !strings.Contains(body, `http_server_request_duration_seconds_count{http_request_method="GET",http_response_status_code="200",http_route="/healthz"}`) {
		t.Errorf("/metrics lacks the partner handler's requests:\n%.2000s", body)
	}
	if got := ops.Routes(); !slices.Equal(got, []string{"GET /metrics", "GET /healthz", "GET /readyz"}) {
		t.Errorf("operator routes %v", got)
	}
	if slices.Contains(s.Routes(), "GET /metrics") {
		t.Error("the partner handler lists GET /metrics")
	}
}

// TestDrain: once Drain is called, /readyz answers 503 problem+json saying the service
// shuts down (without Retry-After: it will not be ready again) on both handlers, while
// /healthz and every other route answer as before; every response then carries
// Connection: close, and the server closes kept-alive connections after it.
func TestDrain(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	ops := s.Ops()
	get := func(h http.Handler, path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		return rec
	}
	for _, h := range []http.Handler{s, ops} {
		if rec := get(h, "/readyz"); rec.Code != http.StatusOK || rec.Header().Get("Connection") != "" {
			t.Fatalf("before Drain: /readyz %d, Connection %q", rec.Code, rec.Header().Get("Connection"))
		}
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	client := srv.Client()
	reused := func() bool {
		t.Helper()
		var got bool
		trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { got = i.Reused }}
		req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(t.Context(), trace), "GET", srv.URL+"/healthz", nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return got
	}
	reused()
	if !reused() {
		t.Fatal("before Drain: the second request did not reuse the kept-alive connection")
	}

	s.Drain()
	for _, tc := range []struct {
		name   string
		h      http.Handler
		path   string
		status int
	}{
		{"partner /readyz", s, "/readyz", 503},
		{"ops /readyz", ops, "/readyz", 503},
		{"partner /healthz", s, "/healthz", 200},
		{"ops /healthz", ops, "/healthz", 200},
		{"ops /metrics", ops, "/metrics", 200},
		{"partner, a route without a token", s, "/v2/catalog/lounges", 401},
		{"partner, an unknown path", s, "/nope", 404},
	} {
		rec := get(tc.h, tc.path)
		if rec.Code != tc.status || rec.Header().Get("Connection") != "close" {
			t.Errorf("%s: %d Connection %q, want %d and close: %.200s", tc.name, rec.Code, rec.Header().Get("Connection"), tc.status, rec.Body)
		}
		if tc.status != 503 {
			continue
		}
		if ct := rec.Header().Get("Content-Type"); ct != "application/problem+json" || rec.Header().Get("Retry-After") != "" ||
			!strings.Contains(rec.Body.String(), `"code":"Unavailable"`) || !strings.Contains(rec.Body.String(), "shutting down") {
			t.Errorf("%s: %q Retry-After %q %s", tc.name, ct, rec.Header().Get("Retry-After"), rec.Body)
		}
	}
	// The connection kept alive from before serves one more request, whose answer
	// closes it; every later one opens its own.
	reused()
	for i := range 3 {
		if reused() {
			t.Errorf("request %d after Drain reused a connection the server should have closed", i+2)
		}
	}
}
