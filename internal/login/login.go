package login

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/skygate/skygate"
)

// MaxSPAState is the longest state the SPA may pass to the login route; it comes
// back unchanged with the code.
const MaxSPAState = 512

// CookieName is the browser-binding cookie: the callback must reach the browser that
// started the login, so a callback URL forwarded to someone else does nothing.
const CookieName = "skygate_login"

// Config configures a Handler.
type Config struct {
	// Issuer, ClientID and ClientSecret identify Skygate at the OpenID Connect
	// provider (SKYGATE_OIDC_ISSUER, …_CLIENT_ID, …_CLIENT_SECRET, or the dev IdP's).
	Issuer       string
	ClientID     string
	ClientSecret string
	// CallbackURL is the absolute URL of the callback route as the provider redirects
	// to it: SKYGATE_PUBLIC_URL + oauth.AuthorizationCallbackPath.
	CallbackURL string
	// RedirectURIs is the whitelist of SPA redirect URIs (SKYGATE_ADMIN_REDIRECT_URIS),
	// compared with the request's redirect_uri byte for byte.
	RedirectURIs []string
	// Policy maps groups to roles and scopes.
	Policy Policy
	// StateKey keys the state signature and the upstream PKCE verifier: the master
	// Box's DeriveKey(seal.PurposeLoginState), the same on every replica. At least
	// 32 bytes.
	StateKey []byte
	// Codes keeps the one-time codes.
	Codes skygate.LoginCodeStore
	// HTTPClient makes the calls to the provider (discovery, token, userinfo, JWKS).
	// Nil means a client with a 15-second timeout.
	HTTPClient *http.Client
	// Clock defaults to time.Now; Log to a logger that discards.
	Clock skygate.Clock
	Log   *slog.Logger
}

// Handler serves the login and callback routes. Its methods return errors for the
// HTTP layer to render; they write the redirects themselves. It is safe for
// concurrent use and keeps no state of its own between requests: logins may start
// on one replica and finish on another.
type Handler struct {
	cfg        Config
	keys       keys
	redirects  map[string]bool
	cookiePath string
	secure     bool

	mu sync.Mutex
	up *upstream // discovered on first use
}

// New checks cfg and returns the handler. It does not contact the provider: discovery
// happens on the first login, so that the service starts while the provider is down
// and the built-in dev IdP, served by this same process, can be discovered.
func New(cfg Config) (*Handler, error) {
	var errs []error
	if u, err := url.Parse(cfg.Issuer); err != nil || !u.IsAbs() {
		errs = append(errs, fmt.Errorf("issuer %q must be an absolute URL", cfg.Issuer))
	}
	if cfg.ClientID == "" {
		errs = append(errs, errors.New("the client id at the identity provider is required"))
	}
	cb, err := url.Parse(cfg.CallbackURL)
	if err != nil || !cb.IsAbs() {
		errs = append(errs, fmt.Errorf("callback URL %q must be absolute", cfg.CallbackURL))
		cb = &url.URL{}
	}
	if len(cfg.RedirectURIs) == 0 {
		errs = append(errs, errors.New("at least one admin redirect URI is required"))
	}
	redirects := map[string]bool{}
	for _, r := range cfg.RedirectURIs {
		u, err := url.Parse(r)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Fragment != "" || u.User != nil {
			errs = append(errs, fmt.Errorf("admin redirect URI %q must be an absolute http(s) URL without fragment or user info", r))
			continue
		}
		redirects[r] = true
	}
	if len(cfg.StateKey) < 32 {
		errs = append(errs, errors.New("the state key must have at least 32 bytes"))
	}
	if cfg.Codes == nil {
		errs = append(errs, errors.New("a login code store is required"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("login: %w", err)
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 15 * time.Second}
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Handler{
		cfg: cfg, keys: deriveKeys(cfg.StateKey), redirects: redirects,
		cookiePath: path.Dir(cb.EscapedPath()), secure: cb.Scheme == "https",
	}, nil
}

// Login serves GET /api/v1/auth/idp/login?redirect_uri&code_challenge&
// code_challenge_method=S256[&state].
//
// A redirect_uri that is missing, repeated or not in the whitelist is a CodeBadRequest
// error: nothing is ever sent to an untrusted URI. Every other problem is a redirect
// to redirect_uri with error=invalid_request (bad PKCE parameters, a repeated
// parameter, a state over MaxSPAState bytes or with control characters) or
// error=temporarily_unavailable (the provider cannot be discovered), plus the SPA's
// state. On success it sets the browser-binding cookie and answers 302 to the
// provider's authorization endpoint.
func (h *Handler) Login(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	redirectURI := q.Get("redirect_uri")
	if len(q["redirect_uri"]) != 1 || !h.redirects[redirectURI] {
		return skygate.Errorf(skygate.CodeBadRequest, "redirect_uri is missing or is not a registered redirect URI of the admin console")
	}
	spaState := q.Get("state")
	if len(spaState) > MaxSPAState || strings.ContainsFunc(spaState, func(r rune) bool { return r < 0x20 || r > 0x7e }) {
		return h.fail(w, r, redirectURI, "", "invalid_request", fmt.Sprintf("state must be at most %d printable ASCII characters", MaxSPAState))
	}
	for _, name := range []string{"code_challenge", "code_challenge_method", "state"} {
		if len(q[name]) > 1 {
			return h.fail(w, r, redirectURI, spaState, "invalid_request", name+" is repeated")
		}
	}
	if m := q.Get("code_challenge_method"); m != "S256" {
		return h.fail(w, r, redirectURI, spaState, "invalid_request", "code_challenge_method must be S256")
	}
	challenge := q.Get("code_challenge")
	if !validChallenge(challenge) {
		return h.fail(w, r, redirectURI, spaState, "invalid_request", "code_challenge must be 43 to 128 base64url characters")
	}
	up, err := h.upstream(r.Context())
	if err != nil {
		h.cfg.Log.ErrorContext(r.Context(), "identity provider discovery failed", "issuer", h.cfg.Issuer, "err", err)
		return h.fail(w, r, redirectURI, spaState, "temporarily_unavailable", "the identity provider cannot be reached; try again later")
	}

	binding := ""
	if c, err := r.Cookie(CookieName); err == nil && len(c.Value) == 43 && validChallenge(c.Value) {
		binding = c.Value // shared by logins in several tabs of one browser
	} else {
		binding = newRandom()
	}
	st := &loginState{
		RedirectURI: redirectURI, Challenge: challenge, SPAState: spaState,
		Nonce: newRandom(), Binding: bindingHash(binding),
		Expires: h.cfg.Clock().Add(StateTTL).Unix(),
	}
	opts := []oauth2.AuthCodeOption{oidc.Nonce(st.Nonce)}
	if up.pkce {
		opts = append(opts, oauth2.S256ChallengeOption(h.keys.upstreamVerifier(st.Nonce)))
	}
	http.SetCookie(w, &http.Cookie{
		Name: CookieName, Value: binding, Path: h.cookiePath, MaxAge: int(StateTTL / time.Second),
		HttpOnly: true, Secure: h.secure, SameSite: http.SameSiteLaxMode,
	})
	noStore(w)
	http.Redirect(w, r, up.oauth.AuthCodeURL(h.keys.signState(st), opts...), http.StatusFound)
	return nil
}

// fail redirects to the trusted redirectURI with an OAuth error (RFC 6749 §4.1.2.1)
// and the SPA's state.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, redirectURI, spaState, code, desc string) error {
	return redirectTo(w, r, redirectURI, url.Values{"error": {code}, "error_description": {desc}}, spaState)
}

// redirectTo answers 302 to uri with params added to its query, and the SPA's state
// when it gave one. uri is always one of the whitelist.
func redirectTo(w http.ResponseWriter, r *http.Request, uri string, params url.Values, spaState string) error {
	u, err := url.Parse(uri)
	if err != nil {
		return err // not reached: New parsed every whitelisted URI
	}
	q := u.Query()
	for k, vs := range params {
		q[k] = vs
	}
	if spaState != "" {
		q.Set("state", spaState)
	}
	u.RawQuery = q.Encode()
	noStore(w)
	// The SPA's URL carries the one-time code; keep it out of Referer headers.
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, u.String(), http.StatusFound)
	return nil
}

func noStore(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
}
