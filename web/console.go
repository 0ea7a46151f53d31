package web

import (
	"net/http"
	"strings"
	"sync"
)

// ConsolePrefix is where the console lives; its Vite build uses it as the base URL.
const ConsolePrefix = "/admin/"

// consoleCSP lets the console load only its own scripts and styles and talk only to
// its own origin (the admin API and the token endpoint). No inline script or style,
// no eval, no framing. The sign-in redirect is a navigation, which CSP does not limit.
const consoleCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; " +
	"frame-ancestors 'none'"

const (
	// immutable is for Vite's content-hashed files: a new build has new names.
	immutable = "public, max-age=31536000, immutable"
	// revalidate is for everything whose name stays the same across builds.
	revalidate = "no-cache"
)

var consoleAssets = sync.OnceValue(func() map[string]*asset {
	a, err := loadAssets(dist, "dist/console")
	if err != nil {
		panic(err)
	}
	if a["index.html"] == nil {
		panic("web: dist/console/index.html is missing; run web/console/build.sh")
	}
	return a
})

// ConsoleHandler serves the employee console under /admin/. Built files are served as
// they are (hashed ones under /admin/assets/ with a one-year immutable cache); any
// other path under /admin/ is a page of the single-page app and gets index.html
// (no-cache), so that deep links and the sign-in callback /admin/callback work. A
// missing file under /admin/assets/ is a plain 404 (http.NotFound): answering it with
// HTML would hide a stale build. /admin redirects to /admin/. Every response carries
// a strict Content-Security-Policy.
//
// Register it for GET /admin/ (the pattern covers every path below).
func ConsoleHandler() http.Handler {
	files := consoleAssets()
	index := files["index.html"]
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !methodAllowed(w, r) {
			return
		}
		p := r.URL.Path
		if p == strings.TrimSuffix(ConsolePrefix, "/") {
			http.Redirect(w, r, ConsolePrefix, http.StatusMovedPermanently)
			return
		}
		rel, ok := strings.CutPrefix(p, ConsolePrefix)
		if !ok {
			http.NotFound(w, r)
			return
		}
		if a := files[rel]; a != nil && rel != "index.html" {
			cache := revalidate
			if strings.HasPrefix(rel, "assets/") {
				cache = immutable
			}
			serveAsset(w, r, a, cache, consoleCSP)
			return
		}
		if rel == "assets" || strings.HasPrefix(rel, "assets/") {
			http.NotFound(w, r)
			return
		}
		serveAsset(w, r, index, revalidate, consoleCSP)
	})
}
