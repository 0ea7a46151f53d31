package httpapi

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/booking"
	"github.com/skygate/skygate/internal/esim"
	"github.com/skygate/skygate/internal/eventfeed"
	"github.com/skygate/skygate/internal/identity"
	"github.com/skygate/skygate/internal/lifecycle"
	"github.com/skygate/skygate/internal/oauth"
	"github.com/skygate/skygate/internal/pricing"
	"github.com/skygate/skygate/internal/webhook"
)

// Deps are the collaborators of the HTTP layer. cmd/skygate builds them.
type Deps struct {
	// Identity manages accounts, applications, their secrets and certificates (the
	// admin API).
	Identity *identity.Service
	// Directory is what the token gate reads of accounts and applications.
	Directory Directory
	// Audit reads the audit log for employees.
	Audit  AuditLog
	Tokens TokenVerifier
	// TokenEndpoint serves POST /oauth/v2/token, with OAuth error bodies of its own.
	TokenEndpoint http.Handler
	// Revocation and Introspection serve POST /oauth/v2/revoke and
	// /oauth/v2/introspect, like TokenEndpoint; nil leaves each unregistered.
	Revocation, Introspection http.Handler
	// Applications is the application cache that the token endpoint's client
	// authenticator reads too; the admin API tells it of changes. Nil makes one over
	// Directory with ApplicationCacheTTL.
	Applications *oauth.ApplicationCache
	// Bookings is the fast-track booking service.
	Bookings *booking.Service
	// Webhooks manages the account's webhook subscription.
	Webhooks *webhook.Service
	// ESIM is the eSIM service.
	ESIM *esim.Service
	// Prices keeps accounts' fast-track price lists and the capacities per slot, and
	// serves the fast-track catalog with the caller's prices; nil serves the catalog
	// without prices and registers no price or capacity routes.
	Prices *pricing.Service
	// Events reads the accounts' event feeds (the events API).
	Events *eventfeed.Service
	// Sandbox marks a sandbox deployment (SKYGATE_ENV=sandbox): every application may
	// use the sandbox routes.
	Sandbox bool
	// Catalog serves the airport catalog.
	Catalog CatalogSource
	// PublicURL is the service's public base URL (SKYGATE_PUBLIC_URL). Problem type
	// URIs are its documentation pages, PublicURL/docs/problems/<code>.
	PublicURL string
	// JWKS and Discovery serve the public keys and the discovery document.
	JWKS      http.Handler
	Discovery http.Handler
	// OpenAPIYAML and OpenAPIJSON are the contract in both representations;
	// OpenAPIPartnerJSON is its partner view (api.PartnerJSON).
	OpenAPIYAML        []byte
	OpenAPIJSON        []byte
	OpenAPIPartnerJSON []byte
	// ClientCerts says how booking routes find client certificates.
	ClientCerts ClientCertConfig
	// Limits are the request rate limits.
	Limits RateLimits
	// Proxies are the trusted reverse proxies (SKYGATE_TRUSTED_PROXIES), whose
	// X-Forwarded-For names the source address of a request (see Server.source); from
	// any other peer the header is ignored.
	Proxies []netip.Prefix
	// EmployeeLogin serves GET /api/v1/auth/idp/login and …/callback; nil leaves
	// them unregistered.
	EmployeeLogin EmployeeLogin
	// DevIdP is the built-in development identity provider, served at DevIdPPattern
	// ("/dev/idp/"); nil in production and with an external provider.
	DevIdP        http.Handler
	DevIdPPattern string
	// Transient reports storage errors that a retry may cure (the database restarting);
	// they are answered 503 with Retry-After instead of 500.
	Transient func(error) bool
	// Ready are the readiness checks of /readyz by name.
	Ready map[string]func(context.Context) error
	Log   *slog.Logger
	// AccessLog receives the access log, one info line per request (see accessLog);
	// nil writes none.
	AccessLog *slog.Logger
	// AccessLogOutput, when not nil, is the writer of AccessLog's handler, which must
	// then be a slog.NewJSONHandler without ReplaceAttr, AddSource, attributes or
	// groups, wrapped by telemetry.LogHandler when Traced: the access log writes the
	// lines of ordinary requests there itself, byte for byte as that handler would, and
	// only the others through AccessLog. Its Write must be safe for concurrent use and
	// write each call whole, as *os.File's is.
	AccessLogOutput io.Writer
	// Traced says that requests arrive traced (the server is wrapped by
	// telemetry.Tracing.Handler) and that the logs add trace ids (telemetry.LogHandler):
	// the access log then writes them too. False, it never looks for a span.
	Traced bool
	Now    skygate.Clock
}

// Directory is what the token gate reads of accounts and applications: the account
// statuses (accountGate) and, through the application cache, the applications.
// skygate.Store implements it.
type Directory interface {
	// Account and AccountsUpdatedSince are skygate.AccountStore's.
	Account(ctx context.Context, accountID string) (*skygate.Account, error)
	AccountsUpdatedSince(ctx context.Context, t time.Time) ([]*skygate.Account, error)
	oauth.ApplicationLookup
}

// AuditLog reads the admin audit log (skygate.AuditStore).
type AuditLog interface {
	ListAuditEvents(ctx context.Context, f skygate.AuditFilter, p skygate.Page) ([]*skygate.AuditEvent, int, error)
}

// EmployeeLogin is employee login (internal/login.Handler): both methods write their
// redirects and return errors for writeError.
type EmployeeLogin interface {
	Login(w http.ResponseWriter, r *http.Request) error
	Callback(w http.ResponseWriter, r *http.Request) error
}

// Server is the http.Handler of both partner listeners. Routes that need a client certificate
// check for one themselves, so the same handler serves the plain and the mTLS listener.
type Server struct {
	deps     Deps
	mux      *http.ServeMux
	log      *slog.Logger
	now      skygate.Clock
	metrics  *metrics
	access   *accessLog
	accounts *accountGate
	// problemBase prefixes the type URI of every problem (see problemTypeBase).
	problemBase string
	// patterns lists the registered routes.
	patterns []string
	// secret holds the patterns whose paths are secret (routeSecret).
	secret map[string]bool
	// ops serves the operator listener (see Ops); nil in the operator server itself.
	ops *Server
	// draining is set by Drain; the operator server shares it.
	draining *atomic.Bool
	// next is what ServeHTTP's outer middleware hands a request to: mux, behind
	// compression on the partner listeners (compress.go).
	next http.Handler
}

// ApplicationCacheTTL is how long a change to an application or an account made on
// another replica may take to apply here: the account poll's interval and the
// application cache's ttl.
const ApplicationCacheTTL = time.Second

// NewServer builds the handler with every route registered.
func NewServer(d Deps) *Server {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Applications == nil {
		d.Applications = oauth.NewApplicationCache(d.Directory, ApplicationCacheTTL, d.Now)
	}
	s := &Server{
		deps:    d,
		mux:     http.NewServeMux(),
		log:     d.Log,
		now:     d.Now,
		metrics: newMetrics(),
		access:  newAccessLog(d.AccessLog),

		problemBase: problemTypeBase(d.PublicURL),
	}
	if s.access != nil {
		s.access.out, s.access.traced = d.AccessLogOutput, d.Traced
	}
	s.accounts = &accountGate{store: d.Directory, apps: d.Applications, now: d.Now,
		status: map[string]skygate.AccountStatus{}, since: d.Now()}
	s.draining = new(atomic.Bool)
	s.next = compress(s.mux)
	s.routes()
	s.ops = s.newOps()
	return s
}

// Run polls the accounts' status changes every ApplicationCacheTTL, so that a change
// made through another replica reaches this one, until ctx ends; it is the HTTP
// layer's background work (a lifecycle.Service).
func (s *Server) Run(ctx context.Context) error {
	return lifecycle.Every("account poll", ApplicationCacheTTL, s.log, s.accounts.Poll).Run(ctx)
}
