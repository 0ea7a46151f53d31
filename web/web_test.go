package web

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// get sends one request to h and returns the recorded response and its body.
func get(t *testing.T, h http.Handler, method, target string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	resp := rec.Result()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}

// consoleAsset returns the path of the first built asset with the extension, taken from
// index.html the way a browser finds it.
func consoleAsset(t *testing.T, ext string) string {
	t.Helper()
	_, index := get(t, ConsoleHandler(), "GET", "/admin/", nil)
	m := regexp.MustCompile(`(?:src|href)="(/admin/assets/[^"]+\` + ext + `)"`).FindStringSubmatch(index)
	if m == nil {
		t.Fatalf("index.html links no %s asset:\n%s", ext, index)
	}
	return m[1]
}

func TestConsoleHandler(t *testing.T) {
	t.Parallel()
	h := ConsoleHandler()
	js, css := consoleAsset(t, ".js"), consoleAsset(t, ".css")
	tests := []struct {
		name, method, path string
		status             int
		contentType        string
		cacheControl       string
		bodyHas            string
	}{
		{"root", "GET", "/admin/", 200, "text/html; charset=utf-8", "no-cache", `<div id="app">`},
		{"callback is the app", "GET", "/admin/callback?code=abc&state=xyz", 200, "text/html; charset=utf-8", "no-cache", `<div id="app">`},
		{"error callback is the app", "GET", "/admin/callback?error=access_denied", 200, "text/html; charset=utf-8", "no-cache", `<div id="app">`},
		{"deep link", "GET", "/admin/accounts/0b7c/applications", 200, "text/html; charset=utf-8", "no-cache", `<div id="app">`},
		{"index.html itself", "GET", "/admin/index.html", 200, "text/html; charset=utf-8", "no-cache", `<div id="app">`},
		{"script", "GET", js, 200, "text/javascript; charset=utf-8", "public, max-age=31536000, immutable", ""},
		{"stylesheet", "GET", css, 200, "text/css; charset=utf-8", "public, max-age=31536000, immutable", ""},
		{"HEAD", "HEAD", js, 200, "text/javascript; charset=utf-8", "public, max-age=31536000, immutable", ""},
		{"missing asset", "GET", "/admin/assets/index-nope.js", 404, "text/plain; charset=utf-8", "", ""},
		{"no directory listing", "GET", "/admin/assets/", 404, "text/plain; charset=utf-8", "", ""},
		{"no directory listing without slash", "GET", "/admin/assets", 404, "text/plain; charset=utf-8", "", ""},
		{"outside the prefix", "GET", "/elsewhere", 404, "text/plain; charset=utf-8", "", ""},
		{"POST", "POST", "/admin/", 405, "text/plain; charset=utf-8", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp, body := get(t, h, tt.method, tt.path, nil)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.status)
			}
			if got := resp.Header.Get("Content-Type"); got != tt.contentType {
				t.Errorf("Content-Type %q, want %q", got, tt.contentType)
			}
			if got := resp.Header.Get("Cache-Control"); got != tt.cacheControl {
				t.Errorf("Cache-Control %q, want %q", got, tt.cacheControl)
			}
			if !strings.Contains(body, tt.bodyHas) {
				t.Errorf("body lacks %q", tt.bodyHas)
			}
			if tt.status == 200 {
				if got := resp.Header.Get("Content-Security-Policy"); got != consoleCSP {
					t.Errorf("CSP %q", got)
				}
				if resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("ETag") == "" {
					t.Errorf("headers %v", resp.Header)
				}
				if tt.method == "HEAD" && body != "" {
					t.Errorf("HEAD has a body")
				}
			}
		})
	}
}

func TestConsoleRedirectsBarePrefix(t *testing.T) {
	t.Parallel()
	resp, _ := get(t, ConsoleHandler(), "GET", "/admin", nil)
	if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "/admin/" {
		t.Fatalf("GET /admin: %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// The console's policy is strict: no inline code, no eval, no foreign origins, no framing.
func TestConsoleCSPIsStrict(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"unsafe-inline", "unsafe-eval", "*", "http:", "https:"} {
		if strings.Contains(consoleCSP, bad) {
			t.Errorf("console CSP allows %s: %s", bad, consoleCSP)
		}
	}
	for _, need := range []string{"default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"} {
		if !strings.Contains(consoleCSP, need) {
			t.Errorf("console CSP lacks %s", need)
		}
	}
	// The built page must then carry no inline script or style.
	_, index := get(t, ConsoleHandler(), "GET", "/admin/", nil)
	if regexp.MustCompile(`<script(?:\s[^>]*)?>\s*[^<\s]`).MatchString(index) || strings.Contains(index, "<style") || strings.Contains(index, " style=") {
		t.Errorf("index.html has inline code the CSP would block:\n%s", index)
	}
}

func TestConditionalAndCompressed(t *testing.T) {
	t.Parallel()
	h := ConsoleHandler()
	js := consoleAsset(t, ".js")
	plain, body := get(t, h, "GET", js, nil)
	etag := plain.Header.Get("ETag")
	if r, _ := get(t, h, "GET", js, map[string]string{"If-None-Match": etag}); r.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: %d, want 304", r.StatusCode)
	}
	gz, zbody := get(t, h, "GET", js, map[string]string{"Accept-Encoding": "br, gzip"})
	if gz.Header.Get("Content-Encoding") != "gzip" || gz.Header.Get("ETag") == etag || !strings.Contains(gz.Header.Get("Vary"), "Accept-Encoding") {
		t.Fatalf("gzip variant headers: %v", gz.Header)
	}
	zr, err := gzip.NewReader(strings.NewReader(zbody))
	if err != nil {
		t.Fatal(err)
	}
	unzipped, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(unzipped, []byte(body)) {
		t.Fatalf("gzip body does not decode to the file (err %v)", err)
	}
	// Accept-Encoding is read as the server's compression reads it
	// (conditional.AcceptsGzip): parameter names in any case, "*" for gzip, and never
	// for HEAD, which the contract answers uncoded.
	for _, tc := range []struct {
		method, acceptEncoding, want string
	}{
		{"GET", "gzip;q=0", ""},
		{"GET", "gzip;Q=0", ""},
		{"GET", "*", "gzip"},
		{"GET", "*, gzip;q=0", ""},
		{"HEAD", "gzip", ""},
	} {
		r, _ := get(t, h, tc.method, js, map[string]string{"Accept-Encoding": tc.acceptEncoding})
		if got := r.Header.Get("Content-Encoding"); got != tc.want {
			t.Errorf("%s with Accept-Encoding %q: Content-Encoding %q, want %q", tc.method, tc.acceptEncoding, got, tc.want)
		}
	}
}

func TestDocsHandler(t *testing.T) {
	t.Parallel()
	h := DocsHandler(DocsConfig{})
	_, page := get(t, h, "GET", "/docs/reference", nil)
	bundle := regexp.MustCompile(`src="(/docs/swagger-ui-bundle\.js\?v=[^"]+)"`).FindStringSubmatch(page)
	if bundle == nil {
		t.Fatalf("page links no versioned bundle:\n%s", page)
	}
	tests := []struct {
		name, path   string
		status       int
		contentType  string
		cacheControl string
		bodyHas      string
	}{
		{"guide", "/docs", 200, "text/html; charset=utf-8", "no-cache", "<h1 id=\"getting-started\">Getting started</h1>"},
		{"guide with slash", "/docs/", 200, "text/html; charset=utf-8", "no-cache", "Getting started"},
		{"guide as index.html", "/docs/index.html", 200, "text/html; charset=utf-8", "no-cache", "Getting started"},
		{"partner reference", "/docs/reference", 200, "text/html; charset=utf-8", "no-cache", `data-spec-url="/openapi/partner.json"`},
		{"admin reference", "/docs/admin", 200, "text/html; charset=utf-8", "no-cache", `data-spec-url="/openapi.json"`},
		{"events", "/docs/events", 200, "text/html; charset=utf-8", "no-cache", "Webhook events"},
		{"problems", "/docs/problems/", 200, "text/html; charset=utf-8", "no-cache", `href="/docs/problems/InvalidBookingStatus"`},
		{"problem", "/docs/problems/InvalidBookingStatus", 200, "text/html; charset=utf-8", "no-cache", "booking_status"},
		{"unknown problem", "/docs/problems/Nope", 404, "text/plain; charset=utf-8", "", ""},
		{"bundle, current version", bundle[1], 200, "text/javascript; charset=utf-8", "public, max-age=31536000, immutable", "SwaggerUIBundle"},
		{"bundle, no version", "/docs/swagger-ui-bundle.js", 200, "text/javascript; charset=utf-8", "no-cache", "SwaggerUIBundle"},
		{"bundle, old version", "/docs/swagger-ui-bundle.js?v=old", 200, "text/javascript; charset=utf-8", "no-cache", ""},
		{"stylesheet", "/docs/swagger-ui.css", 200, "text/css; charset=utf-8", "no-cache", ".swagger-ui"},
		{"guide stylesheet", "/docs/guide.css", 200, "text/css; charset=utf-8", "no-cache", ".docs-nav"},
		{"init script", "/docs/docs.js", 200, "text/javascript; charset=utf-8", "no-cache", "data-spec-url"},
		{"licence", "/docs/LICENSE.txt", 200, "text/plain; charset=utf-8", "no-cache", "Apache"},
		{"unknown file", "/docs/nope.js", 404, "text/plain; charset=utf-8", "", ""},
		{"source map", "/docs/swagger-ui-bundle.js.map", 404, "text/plain; charset=utf-8", "", ""},
		{"traversal", "/docs/../web.go", 404, "text/plain; charset=utf-8", "", ""},
		{"no listing", "/docs/assets/", 404, "text/plain; charset=utf-8", "", ""},
		{"other prefix", "/docsx", 404, "text/plain; charset=utf-8", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp, body := get(t, h, "GET", tt.path, nil)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.status)
			}
			if got := resp.Header.Get("Content-Type"); got != tt.contentType {
				t.Errorf("Content-Type %q, want %q", got, tt.contentType)
			}
			if got := resp.Header.Get("Cache-Control"); got != tt.cacheControl {
				t.Errorf("Cache-Control %q, want %q", got, tt.cacheControl)
			}
			if !strings.Contains(body, tt.bodyHas) {
				t.Errorf("body lacks %q", tt.bodyHas)
			}
			if tt.status == 200 && !strings.Contains(resp.Header.Get("Content-Security-Policy"), "script-src 'self';") {
				t.Errorf("CSP %q", resp.Header.Get("Content-Security-Policy"))
			}
		})
	}
	if resp, _ := get(t, h, "GET", "/docs/problems", nil); resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "/docs/problems/" {
		t.Errorf("GET /docs/problems: %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// The Markdown pages carry the navigation, mark the current entry and need no
// JavaScript; the references load Swagger UI.
func TestDocsPages(t *testing.T) {
	t.Parallel()
	h := DocsHandler(DocsConfig{})
	for _, tt := range []struct {
		path, current string
		script        bool
	}{
		{"/docs", "/docs", false},
		{"/docs/events", "/docs/events", false},
		{"/docs/problems/", "/docs/problems/", false},
		{"/docs/problems/RateLimited", "/docs/problems/", false},
		{"/docs/reference", "/docs/reference", true},
		{"/docs/admin", "/docs/admin", true},
	} {
		_, page := get(t, h, "GET", tt.path, nil)
		for _, nav := range docsNav {
			if !strings.Contains(page, `href="`+nav.Href+`"`) {
				t.Errorf("%s: navigation lacks %s", tt.path, nav.Href)
			}
		}
		if !strings.Contains(page, `href="`+tt.current+`" aria-current="page"`) {
			t.Errorf("%s: %s is not the current entry", tt.path, tt.current)
		}
		if got := strings.Contains(page, "<script"); got != tt.script {
			t.Errorf("%s: has a script %v, want %v", tt.path, got, tt.script)
		}
		if regexp.MustCompile(`<script(?:\s[^>]*)?>\s*[^<\s]`).MatchString(page) || strings.Contains(page, "<style") {
			t.Errorf("%s: inline code", tt.path)
		}
	}
}

// The page is a template: the spec URL is escaped, and an absolute one may be fetched.
func TestDocsSpecURL(t *testing.T) {
	t.Parallel()
	resp, page := get(t, DocsHandler(DocsConfig{AdminSpecURL: `https://api.example.test/openapi.json?a=1&b="><script>`}), "GET", "/docs/admin", nil)
	if strings.Contains(page, `"><script>`) {
		t.Fatalf("spec URL not escaped:\n%s", page)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "connect-src 'self' https://api.example.test;") {
		t.Errorf("CSP does not allow the spec's origin: %s", csp)
	}
	if _, page := get(t, DocsHandler(DocsConfig{}), "GET", "/docs/admin", nil); !strings.Contains(page, `data-spec-url="/openapi.json"`) {
		t.Errorf("empty URL does not default to /openapi.json")
	}
}

// The committed build is complete and small: every file the pages link exists, and no
// source map is shipped.
func TestCommittedBuild(t *testing.T) {
	t.Parallel()
	total := 0
	err := fs.WalkDir(dist, "dist", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.HasSuffix(p, ".map") {
			t.Errorf("source map committed: %s", p)
		}
		b, _ := fs.ReadFile(dist, p)
		total += len(b)
		if bytes.Contains(b, []byte("sourceMappingURL=")) {
			t.Errorf("%s refers to a source map", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if total > 3<<20 {
		t.Errorf("built assets total %d bytes; keep them under 3 MiB", total)
	}
	for _, h := range []struct {
		handler      http.Handler
		page, prefix string
	}{{ConsoleHandler(), "/admin/", "/admin/"}, {DocsHandler(DocsConfig{}), "/docs", "/docs/"}, {DocsHandler(DocsConfig{}), "/docs/reference", "/docs/"}} {
		_, page := get(t, h.handler, "GET", h.page, nil)
		for _, m := range regexp.MustCompile(`(?:src|href)="(`+h.prefix+`[^"]+)"`).FindAllStringSubmatch(page, -1) {
			if resp, _ := get(t, h.handler, "GET", m[1], nil); resp.StatusCode != 200 {
				t.Errorf("%s links %s, which answers %d", h.page, m[1], resp.StatusCode)
			}
		}
	}
}
