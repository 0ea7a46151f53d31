package httpapi

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/catalog"
	"github.com/skygate/skygate/internal/conditional"
)

// compressPage is a catalog page large enough to be gzip-coded.
var compressPage = &catalog.Page{
	Body:         []byte(`{"data":[` + strings.Repeat(`{"name":"Lounge","iata":"TAS"},`, 60) + `{}]}` + "\n"),
	ETag:         `"page-v1"`,
	LastModified: time.Date(2026, 3, 1, 10, 30, 0, 0, time.UTC),
	Language:     "en",
}

// newCompressServer is a Server with routes that answer each kind of body compress
// decides on, and an access log in access.
func newCompressServer(t *testing.T, access io.Writer) *Server {
	t.Helper()
	none := http.NotFoundHandler()
	s := NewServer(Deps{TokenEndpoint: none, JWKS: none, Discovery: none,
		OpenAPIYAML: []byte("openapi: 3.1.0\n" + strings.Repeat("# a line of the contract\n", 100)),
		AccessLog:   slog.New(slog.NewJSONHandler(access, nil))})
	big := strings.Repeat("x", 2*compressMinSize)
	body := func(contentType string, n int, extra ...string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", contentType)
			status := http.StatusOK
			for i := 0; i+1 < len(extra); i += 2 {
				if extra[i] == "status" {
					status, _ = strconv.Atoi(extra[i+1])
					continue
				}
				w.Header().Set(extra[i], extra[i+1])
			}
			w.WriteHeader(status)
			_, _ = w.Write([]byte(big[:n]))
		})
	}
	s.mux.Handle("GET /test/json", s.handle(func(w http.ResponseWriter, r *http.Request) error {
		return writeJSON(w, http.StatusOK, map[string]string{"text": big})
	}))
	s.mux.Handle("GET /test/json-small", s.handle(func(w http.ResponseWriter, r *http.Request) error {
		return writeJSON(w, http.StatusOK, map[string]string{"text": "short"})
	}))
	s.mux.Handle("GET /test/problem", s.handle(func(w http.ResponseWriter, r *http.Request) error {
		return skygate.Errorf(skygate.CodeBadRequest, "%s", big)
	}))
	s.mux.Handle("GET /test/page", s.handle(func(w http.ResponseWriter, r *http.Request) error {
		return writePage(w, r, compressPage)
	}))
	s.mux.Handle("GET /test/png", body("image/png", len(big)))
	s.mux.Handle("GET /test/stream", body("text/event-stream", len(big)))
	s.mux.Handle("GET /test/coded", body("application/json", len(big), "Content-Encoding", "br"))
	s.mux.Handle("GET /test/range", body("application/json", len(big), "Content-Range", "bytes 0-2047/4096", "status", "206"))
	s.mux.Handle("GET /test/empty", body("application/json", 0, "status", "204"))
	s.mux.Handle("GET /test/html", body("text/html; charset=utf-8", len(big)))
	return s
}

// requestIDField is the request_id member of a problem body.
var requestIDField = regexp.MustCompile(`"request_id":"[^"]*"`)

// gunzip decodes a gzip body.
func gunzip(tb testing.TB, b []byte) []byte {
	tb.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		tb.Fatalf("not gzip: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatalf("gzip body: %v", err)
	}
	return out
}

// varyFields lists the fields of every Vary line of h.
func varyFields(h http.Header) []string {
	var out []string
	for _, line := range h.Values("Vary") {
		for f := range strings.SplitSeq(line, ",") {
			out = append(out, strings.TrimSpace(f))
		}
	}
	return out
}

// TestCompress: each kind of answer is gzip-coded exactly when the rules say, decodes
// to the identity body, and says Vary: Accept-Encoding once either way.
func TestCompress(t *testing.T) {
	t.Parallel()
	var access lockedBuffer
	s := newCompressServer(t, &access)
	const (
		plainBody = iota // the same body whatever the request
		problem          // a problem+json body, whose request_id differs per request
		muxError         // ServeMux's 404/405 made a problem by the outer middleware
	)
	for _, tc := range []struct {
		name, method, path string
		status             int
		coded              bool // with Accept-Encoding: gzip
		kind               int
	}{
		{"large JSON", "GET", "/test/json", 200, true, plainBody},
		{"small JSON", "GET", "/test/json-small", 200, false, plainBody},
		{"large problem", "GET", "/test/problem", 400, true, problem},
		{"catalog page", "GET", "/test/page", 200, true, plainBody},
		{"OpenAPI YAML", "GET", "/openapi.yaml", 200, true, plainBody},
		{"HTML", "GET", "/test/html", 200, true, plainBody},
		{"PNG", "GET", "/test/png", 200, false, plainBody},
		{"event stream", "GET", "/test/stream", 200, false, plainBody},
		{"already coded", "GET", "/test/coded", 200, false, plainBody},
		{"range", "GET", "/test/range", 206, false, plainBody},
		{"204", "GET", "/test/empty", 204, false, plainBody},
		{"HEAD", "HEAD", "/test/json", 200, false, plainBody},
		{"unknown path", "GET", "/nope", 404, false, muxError},
		{"wrong method", "POST", "/test/json", 405, false, muxError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			serve := func(acceptEncoding string) *httptest.ResponseRecorder {
				r := httptest.NewRequest(tc.method, tc.path, nil)
				if acceptEncoding != "" {
					r.Header.Set("Accept-Encoding", acceptEncoding)
				}
				w := httptest.NewRecorder()
				before := access.String()
				s.ServeHTTP(w, r)
				// The access log counts the bytes sent (but for ServeMux's errors,
				// which the outer middleware writes past its own count).
				line := decodeLine(t, []byte(strings.TrimPrefix(access.String(), before)))
				if got := fmt.Sprint(line["bytes"]); tc.kind != muxError && got != strconv.Itoa(w.Body.Len()) {
					t.Errorf("Accept-Encoding %q: access log bytes %s, sent %d", acceptEncoding, got, w.Body.Len())
				}
				return w
			}
			plain, gz := serve(""), serve("gzip")
			for _, w := range []*httptest.ResponseRecorder{plain, gz} {
				if w.Code != tc.status {
					t.Fatalf("status %d, want %d", w.Code, tc.status)
				}
				if n := len(w.Header().Values("Vary")); n != 1 {
					t.Errorf("%d Vary lines %q", n, w.Header().Values("Vary"))
				}
				if got := strings.Join(varyFields(w.Header()), ","); strings.Count(got, "Accept-Encoding") != 1 {
					t.Errorf("Vary %q, want Accept-Encoding once", got)
				}
			}
			if ce := plain.Header().Get("Content-Encoding"); ce != "" && tc.path != "/test/coded" {
				t.Errorf("without Accept-Encoding: Content-Encoding %q", ce)
			}
			if got := gz.Header().Get("Content-Encoding") == "gzip"; got != tc.coded {
				t.Fatalf("gzip-coded %v, want %v (Content-Encoding %q)", got, tc.coded, gz.Header().Get("Content-Encoding"))
			}
			body := gz.Body.Bytes()
			if tc.coded {
				if cl := gz.Header().Get("Content-Length"); cl != "" && cl != strconv.Itoa(len(body)) {
					t.Errorf("Content-Length %s of a %d-byte coded body", cl, len(body))
				}
				body = gunzip(t, body)
				if gz.Body.Len() >= len(body) {
					t.Errorf("coded body of %d bytes, identity %d", gz.Body.Len(), len(body))
				}
			}
			want := plain.Body.Bytes()
			if tc.kind != plainBody { // the same but for the request id
				body, want = requestIDField.ReplaceAll(body, nil), requestIDField.ReplaceAll(want, nil)
			}
			if !bytes.Equal(body, want) {
				t.Errorf("the body with gzip accepted, decoded, differs from the identity body")
			}
		})
	}
}

// TestCompressETags: the gzip variant of a page has its own strong ETag, a 304 carries
// the ETag its 200 would have had, and If-None-Match naming either variant matches.
func TestCompressETags(t *testing.T) {
	t.Parallel()
	s := newCompressServer(t, io.Discard)
	a, b := compressPage.ETag, conditional.GzipETag(compressPage.ETag)
	lm := compressPage.LastModified.Format(http.TimeFormat)
	for _, tc := range []struct {
		name, acceptEncoding, ifNoneMatch, ifModifiedSince string
		status                                             int
		etag                                               string
	}{
		{"identity", "", "", "", 200, a},
		{"gzip", "gzip", "", "", 200, b},
		{"identity, INM identity", "", a, "", 304, a},
		{"identity, INM gzip", "", b, "", 304, a},
		{"gzip, INM identity", "gzip", a, "", 304, b},
		{"gzip, INM gzip", "gzip", b, "", 304, b},
		{"gzip, INM weak gzip", "gzip", "W/" + b, "", 304, b},
		{"gzip, INM star", "gzip", "*", "", 304, b},
		{"gzip, IMS", "gzip", "", lm, 304, b},
		{"gzip refused, INM gzip", "gzip;q=0", b, "", 304, a},
		{"gzip, INM another", "gzip", `"page-v2-gzip"`, "", 200, b},
		{"HEAD with gzip", "gzip", "", "", 200, a},
	} {
		t.Run(tc.name, func(t *testing.T) {
			method := http.MethodGet
			if strings.HasPrefix(tc.name, "HEAD") {
				method = http.MethodHead
			}
			r := httptest.NewRequest(method, "/test/page", nil)
			for k, v := range map[string]string{"Accept-Encoding": tc.acceptEncoding, "If-None-Match": tc.ifNoneMatch, "If-Modified-Since": tc.ifModifiedSince} {
				if v != "" {
					r.Header.Set(k, v)
				}
			}
			w := httptest.NewRecorder()
			s.ServeHTTP(w, r)
			if w.Code != tc.status || w.Header().Get("ETag") != tc.etag {
				t.Fatalf("%d ETag %s, want %d %s", w.Code, w.Header().Get("ETag"), tc.status, tc.etag)
			}
			if got := w.Header().Values("Vary"); len(got) != 1 || got[0] != "Accept-Encoding, Accept-Language" {
				t.Errorf("Vary %q", got)
			}
			switch {
			case tc.status == 304 && w.Body.Len() > 0:
				t.Errorf("304 with a body")
			case tc.status == 200 && method == http.MethodGet && tc.etag == b && !bytes.Equal(gunzip(t, w.Body.Bytes()), compressPage.Body):
				t.Errorf("gzip body does not decode to the page")
			case tc.status == 200 && tc.etag == a && method == http.MethodGet && !bytes.Equal(w.Body.Bytes(), compressPage.Body):
				t.Errorf("identity body is not the page")
			}
		})
	}
}

// hostileAcceptEncodings are Accept-Encoding values, well-formed and not: whether each
// accepts gzip under RFC 9110 §12.5.3 (q=0 means not acceptable, "*" stands for codings
// not named).
var hostileAcceptEncodings = []struct {
	value string
	gzip  bool
}{
	{"", false},
	{"gzip", true},
	{"GZIP", true},
	{" gzip ; q=0.5 ", true},
	{"gzip;q=0", false},
	{"gzip;q=0.000", false},
	{"gzip;Q=0", false},
	{"gzip;q=0.001", true},
	{"gzip;q=1;q=0", false},
	{"gzip;level=9", true},
	{"gzip;q=abc", false},
	{"gzip;q=", false},
	{"gzip;q=-1", false},
	{"gzip;q=1e999", true},
	{"gzip;q=NaN", false},
	{"identity", false},
	{"identity;q=0", false},
	{"identity;q=0, gzip", true},
	{"*", true},
	{"*;q=0", false},
	{"*;q=0, gzip", true},
	{"gzip;q=0, *", false},
	{"*, gzip;q=0", false},
	{"br, zstd", false},
	{"x-gzip", false},
	{"deflate, gzip;q=0.1", true},
	{",,,;;;", false},
	{";q=1", false},
	{"gzip\x00", false},
	{strings.Repeat("br;q=0.5, ", 1000) + "gzip", true},
	{strings.Repeat("x", 10<<10), false},
	{strings.Repeat(",", 10<<10), false},
	{"gzip;" + strings.Repeat("q=0.5;", 2000), true},
}

func TestAcceptsGzip(t *testing.T) {
	t.Parallel()
	for _, tc := range hostileAcceptEncodings {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Header.Set("Accept-Encoding", tc.value)
		if got := conditional.AcceptsGzip(r); got != tc.gzip {
			t.Errorf("AcceptsGzip(%.40q) = %v, want %v", tc.value, got, tc.gzip)
		}
		r.Method = http.MethodHead
		if conditional.AcceptsGzip(r) {
			t.Errorf("HEAD with %.40q accepts gzip", tc.value)
		}
	}
}

// gzhttpCodes reports whether gzhttp, as compress configures it but without its gate,
// gzip-codes a large JSON answer to a GET with this Accept-Encoding.
func gzhttpCodes(acceptEncoding string) bool {
	h := gzipWrapper()(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(bytes.Repeat([]byte("x"), 2*compressMinSize))
	}))
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Header.Set("Accept-Encoding", acceptEncoding)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Header().Get("Content-Encoding") == "gzip"
}

// TestAcceptsGzipAgreesWithGzhttp: conditional.AcceptsGzip predicts what gzhttp does, so that a
// 304 carries the ETag its 200 would have (sentETag).
func TestAcceptsGzipAgreesWithGzhttp(t *testing.T) {
	t.Parallel()
	for _, tc := range hostileAcceptEncodings {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Header.Set("Accept-Encoding", tc.value)
		if got, want := conditional.AcceptsGzip(r), gzhttpCodes(tc.value); got != want {
			t.Errorf("Accept-Encoding %.40q: AcceptsGzip %v, gzhttp codes %v", tc.value, got, want)
		}
	}
}

func FuzzAcceptsGzip(f *testing.F) {
	for _, tc := range hostileAcceptEncodings[:len(hostileAcceptEncodings)-4] {
		f.Add(tc.value)
	}
	f.Fuzz(func(t *testing.T, value string) {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Header["Accept-Encoding"] = []string{value}
		if got, want := conditional.AcceptsGzip(r), gzhttpCodes(value); got != want {
			t.Fatalf("Accept-Encoding %q: AcceptsGzip %v, gzhttp codes %v", value, got, want)
		}
	})
}

func TestAddVary(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		lines []string
		want  []string
	}{
		{nil, []string{"Accept-Language"}},
		{[]string{"Accept-Encoding"}, []string{"Accept-Encoding, Accept-Language"}},
		{[]string{"Accept-Encoding", "Origin"}, []string{"Accept-Encoding, Origin, Accept-Language"}},
		{[]string{"accept-language"}, []string{"accept-language"}},
		{[]string{"Accept-Encoding, Accept-Language"}, []string{"Accept-Encoding, Accept-Language"}},
		{[]string{"*"}, []string{"*"}},
	} {
		h := http.Header{}
		for _, l := range tc.lines {
			h.Add("Vary", l)
		}
		addVary(h, "Accept-Language")
		if got := h.Values("Vary"); strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("addVary(%q) = %q, want %q", tc.lines, got, tc.want)
		}
	}
}
