package devidp

import (
	"crypto/rand"
	"encoding/base64"
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// authRequest is an OpenID Connect authentication request (response_type=code).
type authRequest struct {
	ClientID, RedirectURI, ResponseType, Scope, State, Nonce string
	CodeChallenge, CodeChallengeMethod                       string
}

func parseAuthRequest(form url.Values) authRequest {
	return authRequest{
		ClientID: form.Get("client_id"), RedirectURI: form.Get("redirect_uri"),
		ResponseType: form.Get("response_type"), Scope: form.Get("scope"),
		State: form.Get("state"), Nonce: form.Get("nonce"),
		CodeChallenge: form.Get("code_challenge"), CodeChallengeMethod: form.Get("code_challenge_method"),
	}
}

// hidden returns the request as the hidden fields of the login forms.
func (a authRequest) hidden() [][2]string {
	return [][2]string{
		{"client_id", a.ClientID}, {"redirect_uri", a.RedirectURI}, {"response_type", a.ResponseType},
		{"scope", a.Scope}, {"state", a.State}, {"nonce", a.Nonce},
		{"code_challenge", a.CodeChallenge}, {"code_challenge_method", a.CodeChallengeMethod},
	}
}

var (
	challengeRE = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)
	usernameRE  = regexp.MustCompile(`^[a-z0-9._-]{1,64}$`)
	groupRE     = regexp.MustCompile(`^[^\s,]{1,100}$`)
)

// authorize serves the login page (GET) and signs the chosen employee in (POST). An
// unknown client or redirect URI is answered with an error page, never a redirect
// (RFC 6749 §4.1.2.1); other errors go back to the client with error=.
func (p *Provider) authorize(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		p.page(w, http.StatusBadRequest, pageData{Fatal: "The request is malformed."})
		return
	}
	a := parseAuthRequest(r.Form)
	if a.ClientID != clientID {
		p.page(w, http.StatusBadRequest, pageData{Fatal: "Unknown client_id."})
		return
	}
	if a.RedirectURI != p.cfg.RedirectURI {
		p.page(w, http.StatusBadRequest, pageData{Fatal: "The redirect_uri is not registered for this client."})
		return
	}
	switch {
	case a.ResponseType != "code":
		p.redirectError(w, r, a, "unsupported_response_type", "only response_type=code is supported")
		return
	case !slices.Contains(strings.Fields(a.Scope), "openid"):
		p.redirectError(w, r, a, "invalid_scope", "the openid scope is required")
		return
	case a.CodeChallengeMethod != "" && a.CodeChallengeMethod != "S256":
		p.redirectError(w, r, a, "invalid_request", "code_challenge_method must be S256")
		return
	case a.CodeChallengeMethod == "S256" && !challengeRE.MatchString(a.CodeChallenge),
		a.CodeChallengeMethod == "" && a.CodeChallenge != "":
		p.redirectError(w, r, a, "invalid_request", "code_challenge must be an S256 challenge with code_challenge_method=S256")
		return
	}
	if r.Method == http.MethodGet {
		p.page(w, http.StatusOK, p.pageData(a))
		return
	}
	if r.PostForm.Get("action") == "cancel" {
		p.redirectError(w, r, a, "access_denied", "the employee cancelled the sign-in")
		return
	}
	emp, problem := p.chosenEmployee(r.PostForm)
	if problem != "" {
		d := p.pageData(a)
		d.Problem = problem
		p.page(w, http.StatusBadRequest, d)
		return
	}
	code := newSecret()
	now := p.cfg.Clock()
	p.mu.Lock()
	p.prune(now)
	p.codes[code] = &grant{
		employee: emp, nonce: a.Nonce,
		challenge: a.CodeChallenge, scope: a.Scope, authTime: now, expires: now.Add(CodeTTL),
	}
	p.mu.Unlock()
	redirect(w, r, a.RedirectURI, url.Values{"code": {code}}, a.State)
}

// chosenEmployee reads the employee of the login form: a preset one by name, or a
// custom one with the ticked and typed groups. A problem is a message for the page.
func (p *Provider) chosenEmployee(form url.Values) (Employee, string) {
	if name := form.Get("employee"); name != "" {
		for _, e := range employees {
			if e.Username == name {
				return e, ""
			}
		}
		return Employee{}, "Unknown test employee."
	}
	e := Employee{
		Username: strings.TrimSpace(form.Get("username")),
		Name:     strings.TrimSpace(form.Get("name")),
		Email:    strings.TrimSpace(form.Get("email")),
	}
	if !usernameRE.MatchString(e.Username) {
		return Employee{}, "The username must be 1–64 characters of a–z, 0–9, '.', '_' or '-'."
	}
	if e.Name == "" {
		e.Name = e.Username
	}
	if e.Email == "" {
		e.Email = e.Username + "@dev.skygate.invalid"
	}
	if len(e.Name) > 100 || len(e.Email) > 254 {
		return Employee{}, "The name or the email is too long."
	}
	groups := slices.Concat(form["group"], strings.FieldsFunc(form.Get("extra_groups"), func(c rune) bool {
		return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r'
	}))
	for _, g := range groups {
		if !groupRE.MatchString(g) {
			return Employee{}, "A group name must be 1–100 characters without spaces or commas."
		}
		if !slices.Contains(e.Groups, g) {
			e.Groups = append(e.Groups, g)
		}
	}
	if len(e.Groups) > 20 {
		return Employee{}, "At most 20 groups."
	}
	return e, ""
}

// redirectError sends the authorization error back to the client.
func (p *Provider) redirectError(w http.ResponseWriter, r *http.Request, a authRequest, code, desc string) {
	redirect(w, r, a.RedirectURI, url.Values{"error": {code}, "error_description": {desc}}, a.State)
}

// redirect answers 302 to uri with params added to its query, and state when set.
func redirect(w http.ResponseWriter, r *http.Request, uri string, params url.Values, state string) {
	u, _ := url.Parse(uri) // the registered URI, checked by New
	q := u.Query()
	for k, vs := range params {
		q[k] = vs
	}
	if state != "" {
		q.Set("state", state)
	}
	u.RawQuery = q.Encode()
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, u.String(), http.StatusFound)
}

// newSecret returns 32 random bytes in base64url: codes and access tokens.
func newSecret() string {
	var b [32]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

type pageData struct {
	// Fatal replaces the forms with an error.
	Fatal     string
	Problem   string
	Action    string
	Hidden    [][2]string
	Employees []Employee
	Groups    []string
}

func (p *Provider) pageData(a authRequest) pageData {
	return pageData{Action: p.prefix + "/authorize", Hidden: a.hidden(), Employees: employees, Groups: p.groups}
}

// page renders the login page. It is a development tool, but it still refuses
// framing and loads nothing from elsewhere.
func (p *Provider) page(w http.ResponseWriter, status int, d pageData) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(status)
	_ = loginPage.Execute(w, d)
}

var loginPage = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Skygate development sign-in</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#222}
h1{font-size:1.4rem}.note{background:#fff4d6;padding:.6rem .8rem;border-radius:.4rem}
.problem{background:#fde2e1;padding:.6rem .8rem;border-radius:.4rem}
fieldset{border:1px solid #ccc;border-radius:.4rem;margin:1rem 0;padding:.8rem}
button{display:block;width:100%;margin:.3rem 0;padding:.5rem;text-align:left;cursor:pointer}
label{display:block;margin:.3rem 0}input[type=text],input[type=email]{width:100%;padding:.3rem}
</style></head><body>
<h1>Skygate development sign-in</h1>
<p class="note">This is the built-in development identity provider. It is not available in production.</p>
{{if .Fatal}}<p class="problem">{{.Fatal}}</p>{{else}}
{{if .Problem}}<p class="problem">{{.Problem}}</p>{{end}}
<form method="post" action="{{.Action}}">
{{range .Hidden}}<input type="hidden" name="{{index . 0}}" value="{{index . 1}}">
{{end}}<fieldset><legend>Sign in as a test employee</legend>
{{range .Employees}}<button type="submit" name="employee" value="{{.Username}}"><b>{{.Name}}</b> ({{.Username}}, {{.Email}}) — groups: {{range $i, $g := .Groups}}{{if $i}}, {{end}}{{$g}}{{else}}none{{end}}</button>
{{end}}</fieldset>
<button type="submit" name="action" value="cancel">Cancel (answer access_denied)</button>
</form>
<form method="post" action="{{.Action}}">
{{range .Hidden}}<input type="hidden" name="{{index . 0}}" value="{{index . 1}}">
{{end}}<fieldset><legend>Or a custom employee</legend>
<label>Username <input type="text" name="username" required pattern="[a-z0-9._\-]{1,64}"></label>
<label>Name <input type="text" name="name"></label>
<label>Email <input type="email" name="email"></label>
{{range .Groups}}<label><input type="checkbox" name="group" value="{{.}}"> {{.}}</label>
{{end}}<label>Other groups (comma-separated) <input type="text" name="extra_groups"></label>
<button type="submit">Sign in</button>
</fieldset></form>{{end}}
</body></html>
`))
