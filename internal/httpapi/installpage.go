package httpapi

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"errors"
	"html/template"
	"net/http"
	"strconv"
	"strings"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/esim"
)

// The hosted install page, GET /esim/install/{token}: what a partner hands a traveller
// to install an eSIM, without logging in. The token is a bearer capability minted by
// the eSIM service (esim.Service.InstallToken); every token it does not accept is the
// same 404 page. The page is server-rendered HTML in the language of Accept-Language,
// for the platform its User-Agent names, and runs no script.

//go:embed installpage.html installpage.css
var installFiles embed.FS

var (
	installTemplate = template.Must(template.ParseFS(installFiles, "installpage.html"))
	installCSS      = mustRead(installFiles, "installpage.css")
	// installCSP allows nothing but the page's own stylesheet, by its hash, and the QR
	// code, a data: image: no script, no frame, no form, no other origin.
	installCSP = "default-src 'none'; img-src data:; style-src 'sha256-" + sha256Base64(installCSS) +
		"'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)

// installStyle is the page's stylesheet, marked safe for html/template: it is the
// embedded file, which the policy allows by its hash.
var installStyle = template.CSS(installCSS) //nolint:gosec // G203: see above

// mustRead returns the embedded file name.
func mustRead(fsys embed.FS, name string) string {
	b, err := fsys.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// sha256Base64 is the base64 of s's SHA-256, as a CSP hash source names it.
func sha256Base64(s string) string {
	sum := sha256.Sum256([]byte(s))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// Platforms a User-Agent can name, and the order of the page's blocks on each. On an
// iPhone Apple's link first (it opens the eSIM setup), then the QR code for a second
// device. Android has no link that opens its eSIM setup from a browser (the LPA:
// string opens nothing on stock Android), so an Android phone gets the QR code and the
// manual details first, then the activation code as text to select and enter in
// Settings (without a script the page cannot copy it). On an unknown platform (a
// computer, or an iPad, whose Safari says it is a Mac) the QR code first.
const (
	platformIOS     = "ios"
	platformAndroid = "android"
	platformOther   = "other"
)

var installBlocks = map[string][]string{
	platformIOS:     {"ios", "qr", "android", "manual"},
	platformAndroid: {"qr", "manual", "android", "ios"},
	platformOther:   {"qr", "ios", "android", "manual"},
}

// platformOf reads the platform from a User-Agent: iPhone, iPad and iPod are iOS, and
// Android is Android; anything else is another platform. Safari on iPadOS 13 and later
// sends a Mac's User-Agent by default, so most iPads are another platform: the QR code
// first and both buttons, where Apple's link still works.
func platformOf(userAgent string) string {
	switch {
	case strings.Contains(userAgent, "iPhone") || strings.Contains(userAgent, "iPad") || strings.Contains(userAgent, "iPod"):
		return platformIOS
	case strings.Contains(userAgent, "Android"):
		return platformAndroid
	default:
		return platformOther
	}
}

// installView is what installpage.html renders.
type installView struct {
	Lang, Platform, Heading, Message string
	CSS                              template.CSS
	T                                *installText
	ESIM                             *installESIM
}

// installESIM is the eSIM as the page shows it; the install fields are empty unless
// Installable.
type installESIM struct {
	PackageName, Status, StatusText string
	Installable                     bool
	Blocks                          []string
	IOSURL, QR                      template.URL
	AndroidCode                     string
	SMDPAddress, MatchingID         string
}

// installPage serves the install page. Its 404 and 429 are pages too, in the request's
// language; storage failures are problem+json as everywhere.
func (s *Server) installPage(w http.ResponseWriter, r *http.Request) error {
	return s.servePage(w, r, r.PathValue("token"))
}

// installPageMalformed answers every other path under the page's (no token, a
// trailing slash, more segments): a GET or HEAD gets the page's 404, like a token
// the service does not accept, and counts against the same limit; any other method
// is 405 problem+json, as ServeMux would answer it.
func (s *Server) installPageMalformed(w http.ResponseWriter, r *http.Request) error {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		return skygate.Errorf(skygate.CodeMethodNotAllowed, "%s is not allowed here; see the Allow header", r.Method)
	}
	return s.servePage(w, r, "")
}

// servePage serves the page of token; "" is no token at all, not found without
// asking the service.
func (s *Server) servePage(w http.ResponseWriter, r *http.Request, token string) error {
	lang := requestLanguage(r)
	t := installTexts[lang]
	v := &installView{Lang: lang, Platform: platformOf(r.Header.Get("User-Agent")), CSS: installStyle, T: t}
	if err := s.limit(w, r, limitInstallPage, "install:"+sourceKey(s.source(r)), s.deps.Limits.InstallPage); err != nil {
		var limited *rateLimitError
		if !errors.As(err, &limited) {
			return err
		}
		w.Header().Set("Retry-After", strconv.Itoa(limited.RetryAfterSeconds()))
		v.Heading, v.Message = t.TooManyTitle, t.TooMany
		return renderInstall(w, http.StatusTooManyRequests, v)
	}
	if token == "" {
		v.Heading, v.Message = t.NotFoundTitle, t.NotFound
		return renderInstall(w, http.StatusNotFound, v)
	}
	page, err := s.deps.ESIM.InstallPage(r.Context(), token, lang)
	if skygate.IsCode(err, skygate.CodeNotFound) {
		v.Heading, v.Message = t.NotFoundTitle, t.NotFound
		return renderInstall(w, http.StatusNotFound, v)
	}
	if err != nil {
		return err
	}
	v.Heading, v.ESIM = t.Title, installViewOf(page, t, v.Platform)
	if !page.Installable {
		v.Message = t.stateMessage(page.ESIM)
	}
	return renderInstall(w, http.StatusOK, v)
}

// installViewOf is the page's view of an eSIM for platform.
func installViewOf(page *esim.InstallPage, t *installText, platform string) *installESIM {
	e := page.ESIM
	v := &installESIM{Status: string(e.Status), StatusText: t.Statuses[e.Status], Installable: page.Installable}
	if v.StatusText == "" {
		v.StatusText = string(e.Status)
	}
	if e.Package != nil {
		v.PackageName = e.Package.Name
	}
	if !page.Installable || e.InstallLinks == nil {
		v.Installable = false
		return v
	}
	// The URLs are the service's: Apple's https link and a PNG the service drew. The
	// LPA: string is text (escaped as any), not a link: it opens nothing on Android.
	v.Blocks = installBlocks[platform]
	v.IOSURL = template.URL(e.InstallLinks.IOSURL) //nolint:gosec // G203: see above
	v.AndroidCode = e.InstallLinks.AndroidURL
	v.QR = template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(page.QR)) //nolint:gosec // G203: see above
	v.SMDPAddress, v.MatchingID = e.SMDPAddress, e.MatchingID
	return v
}

// renderInstall writes the page v with status and the page's headers: its language,
// what it varies on, and a policy that lets the browser do nothing but show it, never
// store it, never send its address on, never frame it.
func renderInstall(w http.ResponseWriter, status int, v *installView) error {
	var buf bytes.Buffer
	if err := installTemplate.Execute(&buf, v); err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Language", v.Lang)
	addVary(h, "Accept-Language")
	addVary(h, "User-Agent")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Robots-Tag", "noindex, nofollow")
	h.Set("Content-Security-Policy", installCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
	return nil
}
