package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
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
