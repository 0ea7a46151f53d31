package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// DocsPrefix is where the API reference lives.
const DocsPrefix = "/docs"

var docsAssets = sync.OnceValue(func() map[string]*asset {
	a, err := loadAssets(dist, "dist/docs")
	if err != nil {
		panic(err)
	}
	for _, name := range []string{"index.html", "swagger-ui-bundle.js", "swagger-ui.css", "docs.js", "docs.css"} {
		if a[name] == nil {
			panic("web: dist/docs/" + name + " is missing; run web/console/build.sh")
		}
	}
	return a
})

// docsCSP is the console's policy but for styles: Swagger UI sets style attributes
// and injects style elements, and blocking them breaks its layout.
const docsCSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
	"connect-src 'self'%s; font-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// DocsHandler serves the API reference: GET /docs (and /docs/) is a page on which
// Swagger UI renders the OpenAPI document at openapiJSONURL (a path of this service
// such as /openapi.json, or an absolute URL, whose origin the page may then fetch
// from). /docs/<file> are Swagger UI's files and the page's own, embedded, so the page
// works offline; the page links them with a content-hash query (?v=…), and a request
// carrying the current hash may cache for a year. Anything else under /docs/ is
// http.NotFound.
//
// Register it for GET /docs and GET /docs/.
func DocsHandler(openapiJSONURL string) http.Handler {
	if openapiJSONURL == "" {
		openapiJSONURL = "/openapi.json"
	}
	files := docsAssets()
	versioned := func(name string) string {
		return DocsPrefix + "/" + name + "?v=" + strings.Trim(files[name].etag, `"`)
	}
	// The page refers to its files by root-relative paths; version them here rather
	// than in the build, so that the template stays readable.
	src := string(files["index.html"].body)
	for _, name := range []string{"swagger-ui.css", "docs.css", "swagger-ui-bundle.js", "docs.js"} {
		src = strings.ReplaceAll(src, `"`+DocsPrefix+"/"+name+`"`, `"`+versioned(name)+`"`)
	}
	tmpl := template.Must(template.New("docs").Parse(src))
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, struct{ SpecURL string }{openapiJSONURL}); err != nil {
		panic(err) // static template and a string: cannot fail
	}
	sum := sha256.Sum256(buf.Bytes())
	page := &asset{body: buf.Bytes(), contentType: contentTypes[".html"], etag: `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`}

	extra := ""
	if u, err := url.Parse(openapiJSONURL); err == nil && u.Scheme != "" && u.Host != "" {
		extra = " " + u.Scheme + "://" + u.Host
	}
	csp := strings.Replace(docsCSP, "%s", extra, 1)

	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !methodAllowed(w, r) {
			return
		}
		p := r.URL.Path
		if p == DocsPrefix || p == DocsPrefix+"/" || p == DocsPrefix+"/index.html" {
			serveAsset(w, r, page, revalidate, csp)
			return
		}
		rel, ok := strings.CutPrefix(p, DocsPrefix+"/")
		a := files[rel]
		if !ok || a == nil || rel == "index.html" {
			http.NotFound(w, r)
			return
		}
		cache := revalidate
		if r.URL.Query().Get("v") == strings.Trim(a.etag, `"`) {
			cache = immutable
		}
		serveAsset(w, r, a, cache, csp)
	})
}
