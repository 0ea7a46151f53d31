package config

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Environments.
const (
	EnvDevelopment = "development"
	EnvSandbox     = "sandbox"
	EnvProduction  = "production"
)

// Config is the whole operator configuration. Zero values never reach the server: Load
// fills every default.
type Config struct {
	Env      string
	HTTPAddr string
	MTLSAddr string
	// OpsAddr is the operator listener's address (/metrics, /healthz, /readyz).
	OpsAddr string
	// DatabaseURL is sqlite://PATH or postgres://…
	DatabaseURL string
	// DatabaseMaxConns bounds a PostgreSQL pool's connections; 0 leaves it to the
	// engine's default (postgres.DefaultMaxConns).
	DatabaseMaxConns int
	DataDir          string
	PublicURL        string
	// MasterKey is the 32-byte key-encryption key, or nil when it must be generated into
	// the data dir (development only).
	MasterKey       []byte
	Migrate         bool
	TokenTTL        time.Duration
	KeyPrepublish   time.Duration
	ConfirmWindow   time.Duration
	WebhookGrace    time.Duration
	WebhookPrivate  bool
	OIDCIssuer      string
	OIDCClientID    string
	OIDCSecret      string
	AdminRedirects  []string
	RoleMap         map[string]string
	TLSCert         string
	TLSKey          string
	ClientCA        string
	ProxyCertHeader string
	TrustedProxies  []netip.Prefix
	RedisURL        string
	LogLevel        string
	// CPUProfile is a file that serve writes a CPU profile of its whole run to (pprof
	// format), for profiling under real load.
	CPUProfile string
	// PassengerDataRetention is how long after the end of a booking's service date (a
	// UTC day) its passengers' personal data is kept; then the worker removes it.
	PassengerDataRetention time.Duration
	// EventRetention is how long the events API serves an event; events are purged
	// skygate.EventRetentionMargin later, and a cursor older than it is refused.
	EventRetention time.Duration
	// AccountRate and AccountBurst limit each account's (or employee's) requests per
	// second on authenticated routes; TokenRate and TokenBurst limit each client's
	// token requests. A rate of 0 disables the limit.
	AccountRate  float64
	AccountBurst int
	TokenRate    float64
	TokenBurst   int
	// ClientCAKey is the file of ClientCA's private key (PEM: PKCS#8, EC or RSA), when
	// the service signs partners' certificate requests itself; empty when the key is
	// kept elsewhere and certificates signed there are bound instead.
	ClientCAKey string
	// ClientCertTTL is the lifetime of a client certificate the service issues.
	ClientCertTTL time.Duration
	// TokenSourceRate and TokenSourceBurst limit the token requests of each source
	// address that authenticate no client (failed authentications, employee code
	// exchanges, malformed requests). A rate of 0 disables the limit.
	TokenSourceRate  float64
	TokenSourceBurst int
	// EnableDevIdP (SKYGATE_DEV_IDP) serves the built-in development identity provider
	// instead of SKYGATE_OIDC_ISSUER; EnableDevPKI (SKYGATE_DEV_PKI) generates the
	// development PKI instead of SKYGATE_TLS_CERT, SKYGATE_TLS_KEY and SKYGATE_CLIENT_CA.
	// Both default to true in development only (when the external one is unset) and
	// are refused in production.
	EnableDevIdP bool
	EnableDevPKI bool
	// WebhookTimeout bounds one webhook delivery attempt (SKYGATE_WEBHOOK_TIMEOUT;
	// webhook.Timeout, the contract's bound, by default).
	WebhookTimeout time.Duration
	// WebhookLease is how long a claimed delivery stays reserved for the dispatcher
	// that claimed it: the wait before another one retries the deliveries of a replica
	// that died (SKYGATE_WEBHOOK_LEASE; at least twice WebhookTimeout).
	WebhookLease time.Duration
	// CatalogRefresh is how often a server looks for a catalog version that another
	// process stored, such as skygate catalog import (SKYGATE_CATALOG_REFRESH).
	CatalogRefresh time.Duration
	// ShutdownDelay is how long serve goes on serving after SIGTERM or SIGINT, with
	// /readyz answering 503, so that load balancers take the replica out before its
	// listeners close (SKYGATE_SHUTDOWN_DELAY). ShutdownTimeout then bounds the wait for
	// the requests in flight and the background work's current round
	// (SKYGATE_SHUTDOWN_TIMEOUT). The delay is from 0 to MaxShutdownWait; the timeout
	// from 1 s, since a stop with no time at all for its own steps would always end
	// cut (exit status 1), to MaxShutdownWait.
	ShutdownDelay   time.Duration
	ShutdownTimeout time.Duration
}

// Production reports whether the service runs in production.
func (c *Config) Production() bool { return c.Env == EnvProduction }

// DevPKI reports whether the TLS material comes from the generated development PKI
// (SKYGATE_DEV_PKI).
func (c *Config) DevPKI() bool { return c.EnableDevPKI }

// DevIdP reports whether the built-in development identity provider is used
// (SKYGATE_DEV_IDP).
func (c *Config) DevIdP() bool { return c.EnableDevIdP }

// ListenAddr is the address of one listener and the variable that sets it.
type ListenAddr struct{ Variable, Addr string }

// ListenAddrs returns the listeners' addresses: plain, mutual-TLS, operator.
func (c *Config) ListenAddrs() [3]ListenAddr {
	return [3]ListenAddr{{"SKYGATE_HTTP_ADDR", c.HTTPAddr}, {"SKYGATE_MTLS_ADDR", c.MTLSAddr}, {"SKYGATE_OPS_ADDR", c.OpsAddr}}
}

// SQLitePath returns the file of a sqlite:// database URL and true, or "" and false for
// any other engine.
func (c *Config) SQLitePath() (string, bool) {
	p, ok := strings.CutPrefix(c.DatabaseURL, "sqlite://")
	return p, ok
}

// Load reads the configuration through getenv. Every invalid variable is reported in
// the returned error, joined.
func Load(getenv func(string) string) (*Config, error) {
	l := loader{getenv: getenv}
	c := &Config{
		Env:             l.str("SKYGATE_ENV", EnvDevelopment),
		HTTPAddr:        l.str("SKYGATE_HTTP_ADDR", "127.0.0.1:8080"),
		MTLSAddr:        l.str("SKYGATE_MTLS_ADDR", "127.0.0.1:8443"),
		OpsAddr:         l.str("SKYGATE_OPS_ADDR", "127.0.0.1:9090"),
		DataDir:         l.str("SKYGATE_DATA_DIR", "./data"),
		Migrate:         l.boolean("SKYGATE_MIGRATE", true),
		TokenTTL:        l.duration("SKYGATE_TOKEN_TTL", time.Hour),
		KeyPrepublish:   l.duration("SKYGATE_KEY_PREPUBLISH", 10*time.Minute),
		ConfirmWindow:   l.duration("SKYGATE_CONFIRM_WINDOW", 30*time.Minute),
		WebhookGrace:    l.duration("SKYGATE_WEBHOOK_GRACE", 24*time.Hour),
		OIDCIssuer:      l.str("SKYGATE_OIDC_ISSUER", ""),
		OIDCClientID:    l.str("SKYGATE_OIDC_CLIENT_ID", ""),
		OIDCSecret:      l.str("SKYGATE_OIDC_CLIENT_SECRET", ""),
		TLSCert:         l.str("SKYGATE_TLS_CERT", ""),
		TLSKey:          l.str("SKYGATE_TLS_KEY", ""),
		ClientCA:        l.str("SKYGATE_CLIENT_CA", ""),
		ClientCAKey:     l.str("SKYGATE_CLIENT_CA_KEY", ""),
		ClientCertTTL:   l.duration("SKYGATE_CLIENT_CERT_TTL", 8760*time.Hour),
		ProxyCertHeader: l.str("SKYGATE_TRUSTED_PROXY_CERT_HEADER", ""),
		RedisURL:        l.str("SKYGATE_REDIS_URL", ""),
		LogLevel:        l.str("SKYGATE_LOG_LEVEL", "info"),
		CPUProfile:      l.str("SKYGATE_CPU_PROFILE", ""),
		AccountRate:     l.float("SKYGATE_RATE_LIMIT", 100),
		AccountBurst:    l.integer("SKYGATE_RATE_BURST", 200),
		TokenRate:       l.float("SKYGATE_TOKEN_RATE_LIMIT", 10),
		TokenBurst:      l.integer("SKYGATE_TOKEN_RATE_BURST", 20),
		WebhookTimeout:  l.duration("SKYGATE_WEBHOOK_TIMEOUT", 10*time.Second),
		WebhookLease:    l.duration("SKYGATE_WEBHOOK_LEASE", 30*time.Second),
		CatalogRefresh:  l.duration("SKYGATE_CATALOG_REFRESH", 5*time.Second),
		ShutdownDelay:   l.wait("SKYGATE_SHUTDOWN_DELAY", 5*time.Second, 0),
		ShutdownTimeout: l.wait("SKYGATE_SHUTDOWN_TIMEOUT", 30*time.Second, time.Second),
	}
	for _, a := range c.ListenAddrs() {
		if !validListenAddr(a.Addr) {
			l.fail(a.Variable, "must be HOST:PORT with a port from 0 to 65535, such as 127.0.0.1:8080 or :8080, got %q", a.Addr)
		}
	}
	// Unset, the public URL is the plain listener's, so that changing the port keeps
	// discovery and the console's sign-in working; production, which partners reach
	// through a URL only the operator knows (https), requires it.
	c.PublicURL = strings.TrimRight(l.str("SKYGATE_PUBLIC_URL", ""), "/")
	if c.PublicURL == "" {
		switch _, port, _ := net.SplitHostPort(c.HTTPAddr); {
		case c.Env == EnvProduction:
			l.fail("SKYGATE_PUBLIC_URL", "is required in %s: the URL partners reach the service at (token issuer and audience), such as https://api.example.com", c.Env)
		case port == "0":
			l.fail("SKYGATE_PUBLIC_URL", "is required when SKYGATE_HTTP_ADDR's port is 0: the port is only known once the listener is bound")
		default:
			c.PublicURL = "http://" + reachable(c.HTTPAddr)
		}
	}
	if !slices.Contains([]string{"debug", "info", "warn", "error"}, strings.ToLower(c.LogLevel)) {
		l.fail("SKYGATE_LOG_LEVEL", "must be debug, info, warn or error, got %q", c.LogLevel)
	}
	if !slices.Contains([]string{EnvDevelopment, EnvSandbox, EnvProduction}, c.Env) {
		l.fail("SKYGATE_ENV", "must be development, sandbox or production, got %q", c.Env)
	}
	c.DatabaseURL = l.str("SKYGATE_DATABASE_URL", "sqlite://"+filepath.Join(c.DataDir, "skygate.db"))
	if !strings.HasPrefix(c.DatabaseURL, "sqlite://") && !strings.HasPrefix(c.DatabaseURL, "postgres://") && !strings.HasPrefix(c.DatabaseURL, "postgresql://") {
		l.fail("SKYGATE_DATABASE_URL", "must start with sqlite:// or postgres://")
	}
	c.DatabaseMaxConns = l.integer("SKYGATE_DATABASE_MAX_CONNS", 0)
	c.TokenSourceRate = l.float("SKYGATE_TOKEN_SOURCE_RATE_LIMIT", 10)
	c.TokenSourceBurst = l.integer("SKYGATE_TOKEN_SOURCE_RATE_BURST", 20)
	if u, err := url.Parse(c.PublicURL); c.PublicURL != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
		l.fail("SKYGATE_PUBLIC_URL", "must be an absolute http(s) URL")
	}
	c.WebhookPrivate = l.boolean("SKYGATE_WEBHOOK_ALLOW_PRIVATE", c.Env == EnvDevelopment)
	c.MasterKey = l.masterKey("SKYGATE_MASTER_KEY")
	defaultRedirect := ""
	if c.PublicURL != "" {
		defaultRedirect = c.PublicURL + "/admin/callback"
	}
	c.AdminRedirects = strings.Fields(strings.ReplaceAll(l.str("SKYGATE_ADMIN_REDIRECT_URIS", defaultRedirect), ",", " "))
	for _, r := range c.AdminRedirects {
		// The login compares redirect_uri with these exactly; an entry that is no
		// absolute URL of a host could only match a request crafted to it.
		if u, err := url.Parse(r); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.Fragment != "" {
			l.fail("SKYGATE_ADMIN_REDIRECT_URIS", "entry %q must be an absolute http(s) URL with a host, without user information or fragment", r)
		}
	}
	c.RoleMap = l.roleMap("SKYGATE_ROLE_MAP")
	c.TrustedProxies = l.prefixes("SKYGATE_TRUSTED_PROXIES")
	c.PassengerDataRetention = l.duration("SKYGATE_PASSENGER_DATA_RETENTION", 90*24*time.Hour)
	if c.PassengerDataRetention < minPassengerDataRetention {
		// A replay of create-booking answers the stored 202, personal data included, for
		// as long as its Idempotency-Key lives.
		l.fail("SKYGATE_PASSENGER_DATA_RETENTION", "must be at least 72h, the Idempotency-Key lifetime (a replay answers the booking as first accepted), such as 2160h (90 days)")
	}
	c.EventRetention = l.duration("SKYGATE_EVENT_RETENTION", 30*24*time.Hour)
	if c.EventRetention < minEventRetention || c.EventRetention > maxEventRetention {
		// Shorter, a partner's weekend outage outlives its events; longer, the outbox
		// grows without a reader asking for it.
		l.fail("SKYGATE_EVENT_RETENTION", "must be a duration from 24h to 8760h (a year), such as 720h (30 days)")
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"SKYGATE_TOKEN_TTL", c.TokenTTL}, {"SKYGATE_CONFIRM_WINDOW", c.ConfirmWindow},
		{"SKYGATE_WEBHOOK_TIMEOUT", c.WebhookTimeout}, {"SKYGATE_WEBHOOK_LEASE", c.WebhookLease},
		{"SKYGATE_CATALOG_REFRESH", c.CatalogRefresh}} {
		if d.v <= 0 {
			l.fail(d.name, "must be positive")
		}
	}
	if cert := c.TLSCert != ""; cert != (c.TLSKey != "") || cert != (c.ClientCA != "") {
		l.fail("SKYGATE_TLS_CERT", "SKYGATE_TLS_CERT, SKYGATE_TLS_KEY and SKYGATE_CLIENT_CA go together: set all three or none")
	}
	l.conveniences(c) // before anything asks DevIdP or DevPKI
	if c.ClientCAKey != "" && (c.ClientCA == "" || c.DevPKI()) {
		l.fail("SKYGATE_CLIENT_CA_KEY", "goes with SKYGATE_CLIENT_CA: it is that CA's private key (the development PKI signs with its own)")
	}
	if c.ClientCertTTL <= 0 {
		l.fail("SKYGATE_CLIENT_CERT_TTL", "must be positive")
	}
	if c.OIDCIssuer != "" && c.OIDCClientID == "" {
		l.fail("SKYGATE_OIDC_CLIENT_ID", "is required with SKYGATE_OIDC_ISSUER")
	}
	if c.ProxyCertHeader != "" && len(c.TrustedProxies) == 0 {
		l.fail("SKYGATE_TRUSTED_PROXIES", "is required with SKYGATE_TRUSTED_PROXY_CERT_HEADER")
	}
	if c.Production() {
		l.refuseWeak(c)
		if c.RoleMap == nil {
			l.fail("SKYGATE_ROLE_MAP", "is required in production")
		}
	}
	if err := errors.Join(l.errs...); err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	return c, nil
}

// minEventRetention and maxEventRetention bound SKYGATE_EVENT_RETENTION.
const (
	minEventRetention = 24 * time.Hour
	maxEventRetention = 365 * 24 * time.Hour
)

// minPassengerDataRetention is the shortest SKYGATE_PASSENGER_DATA_RETENTION: the
// lifetime of an Idempotency-Key (CONTRACT §4).
const minPassengerDataRetention = 72 * time.Hour

// validListenAddr reports whether addr is HOST:PORT (HOST may be empty) with a decimal
// port net.Listen accepts.
func validListenAddr(addr string) bool {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	n, err := strconv.ParseUint(port, 10, 16)
	return err == nil && strconv.FormatUint(n, 10) == port
}

// reachable returns the listen address addr as an address to connect to: a host that
// means every interface (empty, 0.0.0.0, ::) becomes 127.0.0.1.
func reachable(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip, err := netip.ParseAddr(host); host == "" || err == nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

type loader struct {
	getenv func(string) string
	errs   []error
}

func (l *loader) fail(name, format string, args ...any) {
	l.errs = append(l.errs, fmt.Errorf("%s %s", name, fmt.Sprintf(format, args...)))
}

func (l *loader) str(name, def string) string {
	if v := strings.TrimSpace(l.getenv(name)); v != "" {
		return v
	}
	return def
}

func (l *loader) boolean(name string, def bool) bool {
	v := l.getenv(name)
	if v == "" {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		l.fail(name, "must be true or false, got %q", v)
	}
	return b
}

func (l *loader) duration(name string, def time.Duration) time.Duration {
	v := l.getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		l.fail(name, "must be a Go duration such as 30m, got %q", v)
	}
	return d
}
