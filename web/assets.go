package web

import (
	"bytes"
	"compress/gzip"
	"embed"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/skygate/skygate/internal/conditional"
)

//go:embed dist
var dist embed.FS

// asset is one embedded file, ready to serve.
type asset struct {
	body        []byte
	contentType string
	etag        string // strong, quoted; derived from the content
	// gzipped is computed on first use: most of the docs' 1.9 MB is text.
	gzipOnce sync.Once
	gzipped  []byte
}

// contentTypes are the types of the files the builds produce. Explicit, so that the
// answer does not depend on the host's MIME tables.
var contentTypes = map[string]string{
	".html":  "text/html; charset=utf-8",
	".js":    "text/javascript; charset=utf-8",
	".mjs":   "text/javascript; charset=utf-8",
	".css":   "text/css; charset=utf-8",
	".json":  "application/json",
	".svg":   "image/svg+xml",
	".png":   "image/png",
	".ico":   "image/x-icon",
	".woff2": "font/woff2",
	".txt":   "text/plain; charset=utf-8",
}

// loadAssets reads every file under dir of fsys, keyed by its path relative to dir.
func loadAssets(fsys fs.FS, dir string) (map[string]*asset, error) {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		return nil, err
	}
	out := map[string]*asset{}
	err = fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(sub, p)
		if err != nil {
			return err
		}
		ct, ok := contentTypes[path.Ext(p)]
		if !ok {
			ct = "application/octet-stream"
		}
		out[p] = newAsset(body, ct)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("web: embedded %s: %w", dir, err)
	}
	return out, nil
}

// compressible reports whether gzip is worth it for a.
func (a *asset) compressible() bool {
	return len(a.body) >= 1024 && (strings.HasPrefix(a.contentType, "text/") ||
		strings.HasPrefix(a.contentType, "application/json") || a.contentType == "image/svg+xml")
}

func (a *asset) gzip() []byte {
	a.gzipOnce.Do(func() {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		_, _ = zw.Write(a.body)
		_ = zw.Close()
		a.gzipped = buf.Bytes()
	})
	return a.gzipped
}

// varyAcceptEncoding lists Accept-Encoding in the Vary header unless it is there: the
// server's compression middleware puts it on every answer.
func varyAcceptEncoding(h http.Header) {
	for _, line := range h.Values("Vary") {
		for field := range strings.SplitSeq(line, ",") {
			if strings.EqualFold(strings.TrimSpace(field), "Accept-Encoding") {
				return
			}
		}
	}
	h.Add("Vary", "Accept-Encoding")
}

// securityHeaders are sent with every page and asset of the package.
func securityHeaders(h http.Header, csp string) {
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
}

// serveAsset writes a with the given Cache-Control; conditional requests, HEAD and
// ranges are http.ServeContent's. A gzip variant has its own ETag (RFC 9110 §8.8.3),
// the one the server's compression gives gzip-coded answers (conditional.GzipETag), and
// is sent when the server's compression would code the answer (conditional.AcceptsGzip).
func serveAsset(w http.ResponseWriter, r *http.Request, a *asset, cacheControl, csp string) {
	h := w.Header()
	securityHeaders(h, csp)
	h.Set("Content-Type", a.contentType)
	h.Set("Cache-Control", cacheControl)
	body, etag := a.body, a.etag
	if a.compressible() {
		varyAcceptEncoding(h)
		if conditional.AcceptsGzip(r) {
			body, etag = a.gzip(), conditional.GzipETag(a.etag)
			h.Set("Content-Encoding", "gzip")
		}
	}
	h.Set("ETag", etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

// methodAllowed answers anything but GET and HEAD with 405; ServeMux does the same
// when the routes are registered with GET, this keeps the handlers safe on their own.
func methodAllowed(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	w.Header().Set("Allow", "GET, HEAD")
	http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	return false
}
