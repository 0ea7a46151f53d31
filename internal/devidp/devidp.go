package devidp

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/skygate/skygate"
)

// clientID is the client id of skygate at the development provider.
const clientID = "skygate-dev"

// Lifetimes of what the provider hands out.
const (
	CodeTTL        = 60 * time.Second
	AccessTokenTTL = 5 * time.Minute
	IDTokenTTL     = 5 * time.Minute
)

// Employee is a test employee offered on the login page.
type Employee struct {
	// Username is shown and becomes the subject "dev-" + Username.
	Username string
	Name     string
	Email    string
	Groups   []string
}

// Subject is the employee's sub claim.
func (e Employee) Subject() string { return "dev-" + e.Username }

// employees are the employees of the login page: one per group of the
// contract's example role map (grp-ops=admin, grp-audit=auditor) and a developer whose
// group maps to no role.
var employees = []Employee{
	{Username: "alice", Name: "Alice Ops", Email: "alice@dev.skygate.invalid", Groups: []string{"grp-ops"}},
	{Username: "bob", Name: "Bob Audit", Email: "bob@dev.skygate.invalid", Groups: []string{"grp-audit"}},
	{Username: "carol", Name: "Carol Developer", Email: "carol@dev.skygate.invalid", Groups: []string{"grp-dev"}},
}

// Config configures a Provider.
type Config struct {
	// Env is SKYGATE_ENV; "production" is refused.
	Env string
	// Issuer is the provider's absolute issuer URL, e.g. SKYGATE_PUBLIC_URL + "/dev/idp".
	// Every endpoint lives under its path. Required.
	Issuer string
	// RedirectURI is the one redirect URI the client may use (skygate's login
	// callback), matched exactly. Required.
	RedirectURI string
	// Clock defaults to time.Now.
	Clock skygate.Clock
}

// Provider is the development OpenID Connect provider. It is safe for concurrent use.
type Provider struct {
	cfg    Config
	secret string // skygate's client secret, random
	prefix string // the issuer's path, without a trailing slash
	groups []string
	signer jose.Signer // ES256, typ JWT, kid the key's RFC 7638 thumbprint
	jwks   []byte
	disc   []byte
	mux    *http.ServeMux

	mu     sync.Mutex
	codes  map[string]*grant // code → grant
	tokens map[string]*grant // access token → grant
}

// grant is what one sign-in authorized.
type grant struct {
	employee  Employee
	nonce     string
	challenge string
	scope     string
	authTime  time.Time
	expires   time.Time
}

// New returns a provider, or an error in production or for an invalid Config.
func New(cfg Config) (*Provider, error) {
	if cfg.Env == "production" {
		return nil, errors.New("devidp: the development identity provider is refused in production")
	}
	u, err := url.Parse(cfg.Issuer)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("devidp: issuer %q must be an absolute http(s) URL without query or fragment", cfg.Issuer)
	}
	if r, err := url.Parse(cfg.RedirectURI); err != nil || !r.IsAbs() || r.Fragment != "" {
		return nil, fmt.Errorf("devidp: redirect URI %q must be an absolute URL without fragment", cfg.RedirectURI)
	}
	cfg.Issuer = strings.TrimRight(cfg.Issuer, "/")
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("devidp: signing key: %w", err)
	}
	p := &Provider{
		cfg:    cfg,
		secret: rand.Text(),
		prefix: strings.TrimRight(u.Path, "/"),
		mux:    http.NewServeMux(),
		codes:  map[string]*grant{},
		tokens: map[string]*grant{},
	}
	for _, e := range employees {
		for _, g := range e.Groups {
			if !slices.Contains(p.groups, g) {
				p.groups = append(p.groups, g)
			}
		}
	}
	pub := jose.JSONWebKey{Key: &key.PublicKey, Algorithm: "ES256", Use: "sig"}
	thumb, err := pub.Thumbprint(crypto.SHA256)
	if err != nil {
		return nil, fmt.Errorf("devidp: signing key: %w", err)
	}
	pub.KeyID = base64.RawURLEncoding.EncodeToString(thumb)
	p.jwks, _ = json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{pub}}) // cannot fail for a P-256 key
	p.signer, err = jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: key, KeyID: pub.KeyID}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return nil, fmt.Errorf("devidp: signing key: %w", err)
	}
	p.disc = p.discovery()
	p.routes()
	return p, nil
}

// Issuer returns the issuer URL, without a trailing slash.
func (p *Provider) Issuer() string { return p.cfg.Issuer }

// ClientID and ClientSecret are the credentials of skygate at the provider.
func (p *Provider) ClientID() string     { return clientID }
func (p *Provider) ClientSecret() string { return p.secret }

// Pattern is the ServeMux pattern that covers every endpoint: the issuer's path with
// a trailing slash, e.g. "/dev/idp/".
func (p *Provider) Pattern() string { return p.prefix + "/" }

// Handler serves every endpoint; register it at Pattern.
func (p *Provider) Handler() http.Handler { return p.mux }

func (p *Provider) routes() {
	m, pre := p.mux, p.prefix
	m.HandleFunc("GET "+pre+"/.well-known/openid-configuration", p.serveJSON(p.disc, "public, max-age=60"))
	m.HandleFunc("GET "+pre+"/jwks", p.serveJSON(p.jwks, "public, max-age=60"))
	m.HandleFunc("GET "+pre+"/authorize", p.authorize)
	m.HandleFunc("POST "+pre+"/authorize", p.authorize)
	m.HandleFunc("POST "+pre+"/token", p.token)
	m.HandleFunc("GET "+pre+"/userinfo", p.userinfo)
	m.HandleFunc("POST "+pre+"/userinfo", p.userinfo)
}

// discovery is the OpenID Provider Metadata document.
func (p *Provider) discovery() []byte {
	iss := p.cfg.Issuer
	b, _ := json.Marshal(map[string]any{ // strings and string lists: cannot fail
		"issuer":                                iss,
		"authorization_endpoint":                iss + "/authorize",
		"token_endpoint":                        iss + "/token",
		"userinfo_endpoint":                     iss + "/userinfo",
		"jwks_uri":                              iss + "/jwks",
		"response_types_supported":              []string{"code"},
		"response_modes_supported":              []string{"query"},
		"grant_types_supported":                 []string{"authorization_code"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{"ES256"},
		"scopes_supported":                      []string{"openid", "profile", "email", "groups"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post"},
		"code_challenge_methods_supported":      []string{"S256"},
		"claims_supported": []string{"iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "at_hash",
			"name", "preferred_username", "email", "email_verified", "groups"},
	})
	return b
}

func (p *Provider) serveJSON(body []byte, cacheControl string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", cacheControl)
		_, _ = w.Write(body)
	}
}

// prune drops expired codes and tokens; the caller holds p.mu.
func (p *Provider) prune(now time.Time) {
	expired := func(_ string, g *grant) bool { return !now.Before(g.expires) }
	maps.DeleteFunc(p.codes, expired)
	maps.DeleteFunc(p.tokens, expired)
}
