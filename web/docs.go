package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
)

// DocsPrefix is where the documentation lives.
const DocsPrefix = "/docs"

// content is the documentation's Markdown and its stylesheet.
//
//go:embed content
var content embed.FS

var docsAssets = sync.OnceValue(func() map[string]*asset {
	a, err := loadAssets(dist, "dist/docs")
	if err != nil {
		panic(err)
	}
	for _, name := range []string{"swagger-ui-bundle.js", "swagger-ui.css", "docs.js", "docs.css"} {
		if a[name] == nil {
			panic("web: dist/docs/" + name + " is missing; run web/console/build.sh")
		}
	}
	css, err := fs.ReadFile(content, "content/guide.css")
	if err != nil {
		panic(err)
	}
	a["guide.css"] = newAsset(css, contentTypes[".css"])
	return a
})

// docsCSP is the console's policy but for styles: Swagger UI sets style attributes
// and injects style elements, and blocking them breaks its layout.
const docsCSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
	"connect-src 'self'%s; font-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// DocsConfig says which OpenAPI documents the references render.
type DocsConfig struct {
	// PartnerSpecURL is the partner view (/openapi/partner.json when empty), rendered at
	// /docs/reference.
	PartnerSpecURL string
	// AdminSpecURL is the whole document (/openapi.json when empty), rendered at
	// /docs/admin.
	AdminSpecURL string
}

// navItem is one entry of the documentation's left navigation.
type navItem struct{ Href, Label string }

// docsNav is the navigation of every page, in order.
var docsNav = []navItem{
	{DocsPrefix, "Getting started"},
	{DocsPrefix + "/reference", "API reference"},
	{DocsPrefix + "/events", "Webhook events"},
	{DocsPrefix + "/problems/", "Problems"},
	{DocsPrefix + "/admin", "Admin reference"},
}

// DocsHandler serves the documentation: GET /docs (and /docs/) is the Getting started
// guide, /docs/events the webhook event catalog, /docs/problems/ the problem types and
// /docs/problems/<code> one each, all Markdown from content/ rendered once, without
// JavaScript, in one layout with the navigation. /docs/reference and /docs/admin are
// Swagger UI on the partner view and on the whole OpenAPI document. /docs/<file> are
// Swagger UI's files and the pages' own, embedded, so the pages work offline; pages link
// them with a content-hash query (?v=…), and a request carrying the current hash may
// cache for a year. Anything else under /docs/ is http.NotFound.
//
// Register it for GET /docs and GET /docs/.
func DocsHandler(c DocsConfig) http.Handler {
	if c.PartnerSpecURL == "" {
		c.PartnerSpecURL = "/openapi/partner.json"
	}
	if c.AdminSpecURL == "" {
		c.AdminSpecURL = "/openapi.json"
	}
	files := docsAssets()
	pages, err := renderDocs(files, c)
	if err != nil {
		panic(err) // embedded content: a test renders it
	}
	extra := ""
	for _, spec := range []string{c.PartnerSpecURL, c.AdminSpecURL} {
		if u, err := url.Parse(spec); err == nil && u.Scheme != "" && u.Host != "" {
			extra += " " + u.Scheme + "://" + u.Host
		}
	}
	csp := strings.Replace(docsCSP, "%s", extra, 1)

	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !methodAllowed(w, r) {
			return
		}
		p := r.URL.Path
		if p == DocsPrefix+"/problems" {
			http.Redirect(w, r, DocsPrefix+"/problems/", http.StatusMovedPermanently)
			return
		}
		if page := pages[strings.TrimSuffix(p, "/index.html")]; page != nil {
			serveAsset(w, r, page, revalidate, csp)
			return
		}
		rel, ok := strings.CutPrefix(p, DocsPrefix+"/")
		a := files[rel]
		if !ok || a == nil {
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

// docsPage is what the layout renders.
type docsPage struct {
	Title   string
	Current string // the navigation entry to mark
	Body    template.HTML
	// SpecURL makes the page a Swagger UI reference of that document.
	SpecURL string
	Asset   func(name string) string
	Nav     []navItem
}

var layout = template.Must(template.New("layout").Parse(`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>{{.Title}} · Skygate docs</title>
    <link rel="icon" href="data:,">
{{- if .SpecURL}}
    <link rel="stylesheet" href="{{call .Asset "swagger-ui.css"}}">
    <link rel="stylesheet" href="{{call .Asset "docs.css"}}">
{{- end}}
    <link rel="stylesheet" href="{{call .Asset "guide.css"}}">
  </head>
  <body>
    <div class="docs">
      <nav class="docs-nav" aria-label="Documentation">
        <a class="docs-brand" href="/docs">Skygate</a>
        <ul>
{{- range .Nav}}
          <li><a href="{{.Href}}"{{if eq .Href $.Current}} aria-current="page"{{end}}>{{.Label}}</a></li>
{{- end}}
        </ul>
      </nav>
      <main class="docs-main{{if .SpecURL}} docs-reference{{end}}">
{{- if .SpecURL}}
        <noscript>The API reference needs JavaScript; the document itself is at <a href="{{.SpecURL}}">{{.SpecURL}}</a>.</noscript>
        <div id="swagger-ui" data-spec-url="{{.SpecURL}}"></div>
{{- else}}
        <article class="docs-article">
{{.Body}}
        </article>
{{- end}}
      </main>
    </div>
{{- if .SpecURL}}
    <script src="{{call .Asset "swagger-ui-bundle.js"}}"></script>
    <script src="{{call .Asset "docs.js"}}"></script>
{{- end}}
  </body>
</html>
`))

var markdown = goldmark.New(
	goldmark.WithExtensions(extension.GFM),
	goldmark.WithParserOptions(parser.WithAutoHeadingID()),
)

// renderDocs renders every page of the documentation, keyed by its path.
func renderDocs(files map[string]*asset, c DocsConfig) (map[string]*asset, error) {
	versioned := func(name string) string {
		return DocsPrefix + "/" + name + "?v=" + strings.Trim(files[name].etag, `"`)
	}
	pages := map[string]*asset{}
	render := func(paths []string, p docsPage) error {
		p.Asset, p.Nav = versioned, docsNav
		var buf bytes.Buffer
		if err := layout.Execute(&buf, p); err != nil {
			return err
		}
		a := newAsset(buf.Bytes(), contentTypes[".html"])
		for _, path := range paths {
			pages[path] = a
		}
		return nil
	}
	markdownPage := func(paths []string, current, src string) error {
		title, body, err := renderMarkdown(src)
		if err != nil {
			return fmt.Errorf("web: %s: %w", paths[0], err)
		}
		return render(paths, docsPage{Title: title, Current: current, Body: body})
	}

	guide, err := fs.ReadFile(content, "content/getting-started.md")
	if err != nil {
		return nil, err
	}
	if err := markdownPage([]string{DocsPrefix, DocsPrefix + "/"}, DocsPrefix, string(guide)); err != nil {
		return nil, err
	}
	events, err := eventsMarkdown()
	if err != nil {
		return nil, err
	}
	if err := markdownPage([]string{DocsPrefix + "/events"}, DocsPrefix+"/events", events); err != nil {
		return nil, err
	}
	problems, err := problemPages()
	if err != nil {
		return nil, err
	}
	index := "# Problems\n\nEvery error answer is an RFC 9457 problem (`application/problem+json`) " +
		"whose `type` is the URL of one of these pages and whose `code` is its name; act on " +
		"the `code`. The body also carries `title`, `status`, `detail` (for a person, not for " +
		"parsing) and `request_id` (quote it when you ask us about a call).\n\n"
	for _, p := range problems {
		index += fmt.Sprintf("- [%s](%s/problems/%s): %s\n", p.code, DocsPrefix, p.code, p.summary)
		if err := markdownPage([]string{DocsPrefix + "/problems/" + p.code}, DocsPrefix+"/problems/", p.source); err != nil {
			return nil, err
		}
	}
	if err := markdownPage([]string{DocsPrefix + "/problems/"}, DocsPrefix+"/problems/", index); err != nil {
		return nil, err
	}
	for _, ref := range []struct{ path, title, spec string }{
		{"/reference", "API reference", c.PartnerSpecURL},
		{"/admin", "Admin reference", c.AdminSpecURL},
	} {
		if err := render([]string{DocsPrefix + ref.path}, docsPage{Title: ref.title, Current: DocsPrefix + ref.path, SpecURL: ref.spec}); err != nil {
			return nil, err
		}
	}
	return pages, nil
}

// renderMarkdown renders src and returns its first heading as the title.
func renderMarkdown(src string) (title string, body template.HTML, err error) {
	first, _, _ := strings.Cut(src, "\n")
	title, ok := strings.CutPrefix(first, "# ")
	if !ok {
		return "", "", fmt.Errorf("does not start with a # heading")
	}
	var buf bytes.Buffer
	if err := markdown.Convert([]byte(src), &buf); err != nil {
		return "", "", err
	}
	// Goldmark escapes raw HTML (it is not enabled), so the output is safe to embed.
	return title, template.HTML(buf.String()), nil //nolint:gosec // G203: escaped by Goldmark, see above
}

// problemPage is the Markdown page of one problem code.
type problemPage struct {
	code, summary, source string
}

// problemPages reads content/problems/<code>.md, sorted by code. The paragraph after a
// page's heading is its summary in the index.
func problemPages() ([]problemPage, error) {
	entries, err := fs.ReadDir(content, "content/problems")
	if err != nil {
		return nil, err
	}
	var out []problemPage
	for _, e := range entries {
		code, ok := strings.CutSuffix(e.Name(), ".md")
		if !ok {
			continue
		}
		b, err := fs.ReadFile(content, path.Join("content/problems", e.Name()))
		if err != nil {
			return nil, err
		}
		src := string(b)
		if !strings.HasPrefix(src, "# "+code+"\n") {
			return nil, fmt.Errorf("web: problems/%s: the heading is not # %s", e.Name(), code)
		}
		paras := strings.SplitN(src, "\n\n", 3)
		if len(paras) < 3 {
			return nil, fmt.Errorf("web: problems/%s: no summary paragraph", e.Name())
		}
		out = append(out, problemPage{code: code, summary: strings.ReplaceAll(strings.TrimSpace(paras[1]), "\n", " "), source: src})
	}
	slices.SortFunc(out, func(a, b problemPage) int { return strings.Compare(a.code, b.code) })
	return out, nil
}

// ProblemCodes lists the problem codes that have a page under /docs/problems/.
func ProblemCodes() []string {
	pages, err := problemPages()
	if err != nil {
		panic(err)
	}
	var codes []string
	for _, p := range pages {
		codes = append(codes, p.code)
	}
	return codes
}

// newAsset is body served as contentType with an ETag of its content.
func newAsset(body []byte, contentType string) *asset {
	sum := sha256.Sum256(body)
	return &asset{body: body, contentType: contentType, etag: `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`}
}
