package httpapi

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/skygate/skygate/internal/storetest"
)

// wildcard matches a path segment wildcard of a pattern ({id}, {path...}).
var wildcard = regexp.MustCompile(`\{[^}]+\}`)

// TestExactRoutesAgreeWithServeMux checks the exact-route lookup against ServeMux on
// every registered route and on the request shapes that ServeMux treats specially:
// where the lookup answers, ServeMux picks the same pattern, and every literal route
// is answered by the lookup for its own method.
func TestExactRoutesAgreeWithServeMux(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	methods := []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "get"}
	literal := 0
	for _, pattern := range s.Routes() {
		method, path, _ := strings.Cut(pattern, " ")
		concrete := wildcard.ReplaceAllString(path, "abc")
		if !strings.Contains(path, "{") {
			literal++
			r := httptest.NewRequest(method, concrete, nil)
			if route, ok := s.exact.lookup(r); !ok || route.pattern != pattern {
				t.Errorf("%s %s: exact lookup = %q, %v; want %q", method, concrete, route.pattern, ok, pattern)
			}
		}
		targets := []string{
			concrete, concrete + "/", concrete + "?limit=1", "/" + concrete, concrete + "/.",
			strings.ToUpper(concrete), strings.Replace(concrete, "/", "/%2F", 1),
			strings.Replace(concrete, "a", "%61", 1), concrete + "/../" + concrete[strings.LastIndex(concrete, "/")+1:],
		}
		for _, m := range methods {
			for _, target := range targets {
				r := httptest.NewRequest("GET", target, nil)
				r.Method = m
				route, ok := s.exact.lookup(r)
				if !ok {
					continue
				}
				if _, want := s.mux.Handler(r); route.pattern != want {
					t.Errorf("%s %s: exact lookup = %q, ServeMux = %q", m, target, route.pattern, want)
				}
			}
		}
	}
	if literal == 0 || len(s.exact) != literal {
		t.Errorf("%d literal routes, %d in the exact table", literal, len(s.exact))
	}
}

// TestExactRoutePattern checks that a request served by the exact lookup reports its
// route pattern in the access log (and so in the metrics), as one served by ServeMux does.
func TestExactRoutePattern(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	none := http.NotFoundHandler()
	s := NewServer(Deps{Directory: storetest.MustSQLite(t), TokenEndpoint: none, JWKS: none, Discovery: none, AccessLog: &log})
	for _, tc := range []struct{ method, target, route string }{
		{"GET", "/healthz", "GET /healthz"},                               // exact lookup
		{"HEAD", "/healthz", "GET /healthz"},                              // ServeMux
		{"GET", "/v2/catalog/lounges/x1", "GET /v2/catalog/lounges/{id}"}, // ServeMux
		{"GET", "/nope", "unmatched"},
	} {
		log.Reset()
		s.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(tc.method, tc.target, nil))
		if got := decodeLine(t, log.Bytes())["route"]; got != tc.route {
			t.Errorf("%s %s: route %q, want %q", tc.method, tc.target, got, tc.route)
		}
	}
}
