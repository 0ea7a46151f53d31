package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlite/sqlitetest"
)

// newTestServer builds a Server on a real SQLite store with test-only routes added.
func newTestServer(t *testing.T) *Server {
	t.Helper()
	none := http.NotFoundHandler()
	s := NewServer(Deps{Directory: sqlitetest.MustOpen(t), TokenEndpoint: none, JWKS: none, Discovery: none})
	s.mux.Handle("GET /test/panic", s.handle(func(w http.ResponseWriter, r *http.Request) error {
		panic("boom at /src/skygate/handler.go:42")
	}))
	s.mux.Handle("GET /test/internal", s.handle(func(w http.ResponseWriter, r *http.Request) error {
		return errors.New(`sql: no rows in result set; pq: relation "x" goroutine 7 [running] handler.go:12`)
	}))
	s.mux.Handle("POST /test/json", s.handle(func(w http.ResponseWriter, r *http.Request) error {
		var v struct {
			Name string `json:"name"`
			N    int    `json:"n"`
		}
		if _, err := decodeJSON(w, r, &v); err != nil {
			return err
		}
		return writeJSON(w, http.StatusOK, v)
	}))
	return s
}

func TestErrorResponses(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	big := `{"name":"` + strings.Repeat("x", maxBodyBytes) + `"}`
	for _, tc := range []struct {
		name, method, path, contentType, body string
		status                                int
		code                                  string
	}{
		{"panic", "GET", "/test/panic", "", "", 500, skygate.CodeInternal},
		{"internal error", "GET", "/test/internal", "", "", 500, skygate.CodeInternal},
		{"unknown path", "GET", "/nope", "", "", 404, skygate.CodeNotFound},
		{"wrong method", "DELETE", "/test/json", "", "", 405, skygate.CodeMethodNotAllowed},
		{"other media type", "POST", "/test/json", "text/plain", `{"name":"a"}`, 415, skygate.CodeUnsupportedMediaType},
		{"no media type", "POST", "/test/json", "", `{"name":"a"}`, 415, skygate.CodeUnsupportedMediaType},
		{"too large", "POST", "/test/json", "application/json", big, 413, skygate.CodePayloadTooLarge},
		{"malformed", "POST", "/test/json", "application/json", `{"name":`, 400, skygate.CodeBadRequest},
		{"unknown field", "POST", "/test/json", "application/json", `{"nom":"a"}`, 400, skygate.CodeBadRequest},
		{"wrong type", "POST", "/test/json", "application/json", `{"n":"x"}`, 400, skygate.CodeBadRequest},
		{"two values", "POST", "/test/json", "application/json", `{"name":"a"}{}`, 400, skygate.CodeBadRequest},
		{"trailing garbage", "POST", "/test/json", "application/json", `{"name":"a"} x`, 400, skygate.CodeBadRequest},
		{"empty", "POST", "/test/json", "application/json", ``, 400, skygate.CodeBadRequest},
		{"raw NUL in a JSON string", "POST", "/test/json", "application/json", "{\"name\":\"a\x00b\"}", 400, skygate.CodeBadRequest},
		{"a field twice", "POST", "/test/json", "application/json", `{"name":"a","name":"b"}`, 400, skygate.CodeBadRequest},
		{"invalid UTF-8", "POST", "/test/json", "application/json", "{\"name\":\"a\xffb\"}", 400, skygate.CodeBadRequest},
		{"a field in another case", "POST", "/test/json", "application/json", `{"Name":"a"}`, 400, skygate.CodeBadRequest},
		{"escaped NUL", "POST", "/test/json", "application/json; charset=utf-8", `{"name":"a\u0000b"}`, 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.body))
			if tc.contentType != "" {
				req.Header.Set("Content-Type", tc.contentType)
			}
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, req)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, rec.Body)
			}
			if tc.code == "" {
				return
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/problem+json" {
				t.Errorf("Content-Type %q", ct)
			}
			var p problem
			if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
				t.Fatal(err)
			}
			if p.Code != tc.code || p.Status != tc.status || p.RequestID == "" || p.RequestID != rec.Header().Get("X-Request-ID") || p.Type == "" || p.Title == "" {
				t.Errorf("problem %+v", p)
			}
			for _, leak := range []string{"sql:", ".go:", "goroutine", "pq:", "boom", "panic"} {
				if bytes.Contains(rec.Body.Bytes(), []byte(leak)) {
					t.Errorf("body leaks %q: %s", leak, rec.Body)
				}
			}
		})
	}
}

func TestAcceptsPNG(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		accept string
		png    bool
		err    bool
	}{
		{"", false, false},
		{"application/json", false, false},
		{"image/png", true, false},
		{"image/png, application/json;q=0.5", true, false},
		{"application/json, image/png;q=0.5", false, false},
		{"image/*", true, false},
		{"*/*", false, false},
		{"image/png;q=0, application/json", false, false},
		{"text/html", false, true},
		{"image/png;q=0", false, true},
	} {
		png, err := acceptsPNG(tc.accept)
		if png != tc.png || (err != nil) != tc.err {
			t.Errorf("acceptsPNG(%q) = %v, %v", tc.accept, png, err)
		}
	}
}

func TestValidRequestID(t *testing.T) {
	t.Parallel()
	for id, ok := range map[string]bool{"a": true, "A-b_c.9": true, strings.Repeat("x", 128): true, "": false, strings.Repeat("x", 129): false, "a b": false, "a/b": false, "ü": false} {
		if validRequestID(id) != ok {
			t.Errorf("validRequestID(%q) != %v", id, ok)
		}
	}
}

// TestRoutePattern checks that a request reports its route pattern in the access log
// (and so in the metrics): a literal route, HEAD of a GET route, a wildcard route, a
// route whose handler panicked, and no route at all.
func TestRoutePattern(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	none := http.NotFoundHandler()
	s := NewServer(Deps{Directory: sqlitetest.MustOpen(t), TokenEndpoint: none, JWKS: none, Discovery: none,
		AccessLog: slog.New(slog.NewJSONHandler(&log, nil))})
	s.mux.Handle("GET /test/panic/{id}", s.handle(func(w http.ResponseWriter, r *http.Request) error {
		panic("boom")
	}))
	for _, tc := range []struct{ method, target, route string }{
		{"GET", "/healthz", "GET /healthz"},
		{"HEAD", "/healthz", "GET /healthz"},
		{"GET", "/v2/catalog/lounges/x1", "GET /v2/catalog/lounges/{id}"},
		{"GET", "/test/panic/x1", "GET /test/panic/{id}"},
		{"GET", "/nope", "unmatched"},
	} {
		log.Reset()
		r := httptest.NewRequest(tc.method, tc.target, nil)
		s.ServeHTTP(httptest.NewRecorder(), r)
		if got := decodeLine(t, log.Bytes())["route"]; got != tc.route {
			t.Errorf("%s %s: route %q, want %q", tc.method, tc.target, got, tc.route)
		}
		// The caller's request learns the pattern too, as from http.ServeMux: tracing
		// around the server names its span by it.
		if want := strings.TrimPrefix(tc.route, "unmatched"); r.Pattern != want {
			t.Errorf("%s %s: the request's Pattern is %q, want %q", tc.method, tc.target, r.Pattern, want)
		}
	}
}

// TestDateHeader: every response, a problem+json from ServeMux included, carries
// exactly one Date, an HTTP-date of when it was written.
func TestDateHeader(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(newTestServer(t))
	defer srv.Close()
	for _, path := range []string{"/healthz", "/nope", "/v2/catalog/lounges"} {
		before := time.Now().Truncate(time.Second)
		resp, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got := resp.Header.Values("Date")
		if len(got) != 1 {
			t.Fatalf("GET %s (%d): Date %q, want one", path, resp.StatusCode, got)
		}
		if date, err := http.ParseTime(got[0]); err != nil || date.Before(before) || date.After(time.Now()) {
			t.Errorf("GET %s (%d): Date %q (%v), want about now", path, resp.StatusCode, got[0], err)
		}
	}
}

// TestNewRequestID: generated ids are valid by the contract's rule and never repeat.
func TestNewRequestID(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 1000 {
		id := newRequestID()
		if !validRequestID(id) || seen[id] {
			t.Fatalf("newRequestID() = %q: valid %v, seen before %v", id, validRequestID(id), seen[id])
		}
		seen[id] = true
	}
}
