package httpapi

import (
	"net/http"
	"slices"
	"strings"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/catalog"
	"github.com/skygate/skygate/web"
)

// routes registers every route of the service. Authentication and scopes are visible
// here, route by route.
func (s *Server) routes() {
	// Operations. Probes find /healthz and /readyz here too; /metrics is on the
	// operator listener only (ops.go).
	s.route("GET /healthz", s.handle(s.healthz))
	s.route("GET /readyz", s.handle(s.readyz))
	s.route("GET /openapi.yaml", s.handle(s.openAPI("application/yaml", s.deps.OpenAPIYAML)))
	s.route("GET /openapi.json", s.handle(s.openAPI("application/json", s.deps.OpenAPIJSON)))
	s.route("GET /openapi/partner.json", s.handle(s.openAPI("application/json", s.deps.OpenAPIPartnerJSON)))

	// Identity.
	s.route("POST /oauth/v2/token", s.limitTokens(s.tokenClientCert(s.deps.TokenEndpoint)))
	if s.deps.Revocation != nil && s.deps.Introspection != nil {
		s.route("POST /oauth/v2/revoke", s.limitTokens(s.tokenClientCert(s.deps.Revocation)))
		s.route("POST /oauth/v2/introspect", s.limitTokens(s.tokenClientCert(s.deps.Introspection)))
	}
	s.route("GET /.well-known/jwks.json", s.deps.JWKS)
	s.route("GET /.well-known/openid-configuration", s.deps.Discovery)
	s.route("GET /.well-known/oauth-authorization-server", s.deps.Discovery)
	if s.deps.EmployeeLogin != nil {
		s.route("GET /api/v1/auth/idp/login", s.handle(s.deps.EmployeeLogin.Login))
		s.route("GET /api/v1/auth/idp/callback", s.handle(s.deps.EmployeeLogin.Callback))
	}
	// The employee console and the rendered contract: static assets, not API routes.
	docs := web.DocsHandler(web.DocsConfig{})
	s.handleMux("GET /admin/", web.ConsoleHandler())
	s.handleMux("GET /docs", docs)
	s.handleMux("GET /docs/", docs)
	if s.deps.DevIdP != nil {
		// A subtree of its own, outside the route list: it is not part of the API.
		s.handleMux(s.deps.DevIdPPattern, s.deps.DevIdP)
	}

	// Catalog: bearer token only, on both listeners.
	s.route("GET /v2/catalog/lounges", s.auth(skygate.ScopeCatalogLoungesRead, s.catalogList(catalog.KindLounge)))
	s.route("GET /v2/catalog/lounges/{id}", s.auth(skygate.ScopeCatalogLoungesRead, s.catalogItem(catalog.KindLounge)))
	if s.deps.Prices != nil {
		// Fast-tracks carry the caller's price.
		s.route("GET /v2/catalog/fast-tracks", s.auth(skygate.ScopeCatalogFastTrackRead, s.fastTrackList))
		s.route("GET /v2/catalog/fast-tracks/{id}", s.auth(skygate.ScopeCatalogFastTrackRead, s.fastTrackItem))
	} else {
		s.route("GET /v2/catalog/fast-tracks", s.auth(skygate.ScopeCatalogFastTrackRead, s.catalogList(catalog.KindFastTrack)))
		s.route("GET /v2/catalog/fast-tracks/{id}", s.auth(skygate.ScopeCatalogFastTrackRead, s.catalogItem(catalog.KindFastTrack)))
	}
	s.route("GET /v2/catalog/fast-tracks/{id}/availability", s.auth(skygate.ScopeCatalogFastTrackRead, s.getAvailability))

	// Fast-track booking: bearer token and a client certificate (mTLS listener).
	write, read := skygate.ScopeBookingWrite, skygate.ScopeBookingRead
	s.route("POST /v2/b2b/booking/fast-tracks", s.booking(write, s.createBooking))
	s.route("GET /v2/b2b/booking/fast-tracks", s.booking(read, s.listBookings))
	s.route("GET /v2/b2b/booking/fast-tracks/{bookingID}", s.booking(read, s.getBooking))
	s.route("POST /v2/b2b/booking/fast-tracks/{bookingID}/confirm", s.booking(write, s.confirmBooking))
	s.route("POST /v2/b2b/booking/fast-tracks/{bookingID}/cancel", s.booking(write, s.cancelBooking))
	s.route("GET /v2/b2b/booking/fast-tracks/{bookingID}/cancellation", s.booking(read, s.getCancellation))
	s.route("POST /v2/b2b/booking/fast-tracks/quotes", s.booking(write, s.createQuote))
	s.route("GET /v2/b2b/booking/fast-tracks/{bookingID}/pass", s.booking(read, s.getPass))
	s.route("POST /v2/sandbox/booking/fast-tracks/{bookingID}/simulate", s.booking(write, s.simulateBooking))

	// eSIM: the account's package catalog, orders, eSIMs, top-ups, billing and sandbox
	// drivers; bearer token only.
	catalogESIM, esimRead, esimWrite := skygate.ScopeCatalogESIMRead, skygate.ScopeESIMRead, skygate.ScopeESIMWrite
	s.route("GET /v2/catalog/esim/packages", s.auth(catalogESIM, s.esimPackages))
	s.route("GET /v2/catalog/esim/packages/{packageID}", s.auth(catalogESIM, s.esimPackage))
	s.route("POST /v2/b2b/esim/orders", s.auth(esimWrite, s.createESIMOrder))
	s.route("GET /v2/b2b/esim/orders", s.auth(esimRead, s.listESIMOrders))
	s.route("GET /v2/b2b/esim/orders/{orderID}", s.auth(esimRead, s.getESIMOrder))
	s.route("GET /v2/b2b/esims", s.auth(esimRead, s.listESIMs))
	s.route("GET /v2/b2b/esims/{iccid}", s.auth(esimRead, s.getESIM))
	s.route("GET /v2/b2b/esims/{iccid}/qr", s.auth(esimRead, s.esimQR))
	s.route("GET /v2/b2b/esims/{iccid}/instructions", s.auth(esimRead, s.esimInstructions))
	s.route("POST /v2/b2b/esims/{iccid}/topups", s.auth(esimWrite, s.createTopUp))
	s.route("POST /v2/b2b/esims/{iccid}/cancel", s.auth(esimWrite, s.cancelESIM))
	s.route("GET /v2/b2b/esims/{iccid}/history", s.auth(esimRead, s.esimHistory))
	s.route("GET /v2/b2b/esim/billing", s.auth(esimRead, s.esimBilling))
	s.route("POST /v2/sandbox/esims/{iccid}/install", s.auth(esimWrite, s.sandboxESIM("install")))
	s.route("POST /v2/sandbox/esims/{iccid}/activate", s.auth(esimWrite, s.sandboxESIM("activate")))
	s.route("POST /v2/sandbox/esims/{iccid}/usage", s.auth(esimWrite, s.sandboxESIM("usage")))
	s.route("POST /v2/sandbox/esims/{iccid}/profile", s.auth(esimWrite, s.sandboxESIM("profile")))
	s.route("GET /v2/b2b/esim/settings", s.auth(esimRead, s.esimSettings))
	s.route("PATCH /v2/b2b/esim/settings", s.auth(esimWrite, s.patchESIMSettings))
	// The hosted install page: no login, the token is the capability, so its path is
	// secret; limited per source address (installpage.go). Every other path under it
	// (no token, a trailing slash, more segments, another method) is the page's 404
	// or a 405, and as secret: none is an API route.
	s.routeSecret("GET "+skygate.InstallPagePath+"{token}", s.handle(s.installPage))
	s.handleSecret(skygate.InstallPagePath+"{rest...}", s.handle(s.installPageMalformed))
	s.handleSecret(strings.TrimSuffix(skygate.InstallPagePath, "/"), s.handle(s.installPageMalformed))

	// Billing: the account's one prepaid ledger, shared by bookings and eSIMs, so either
	// side's scope reads and sets it; bearer token only.
	billingRead := []string{esimRead, skygate.ScopeBookingRead}
	billingWrite := []string{esimWrite, skygate.ScopeBookingWrite}
	s.route("GET /v2/b2b/billing", s.handle(s.authenticateAny(billingRead, s.billing)))
	s.route("GET /v2/b2b/billing/settings", s.handle(s.authenticateAny(billingRead, s.billingSettings)))
	s.route("PATCH /v2/b2b/billing/settings", s.handle(s.authenticateAny(billingWrite, s.patchBillingSettings)))
	s.route("GET /v2/b2b/billing/statements/{month}", s.handle(s.authenticateAny(billingRead, s.billingStatement)))

	// Webhooks: one subscription per account, signed deliveries with a log of every
	// attempt.
	hooksRead, hooksWrite := skygate.ScopeWebhooksRead, skygate.ScopeWebhooksWrite
	s.route("POST /api/v1/b2b/webhooks", s.auth(hooksWrite, s.createWebhook))
	s.route("GET /api/v1/b2b/webhooks", s.auth(hooksRead, s.listWebhooks))
	s.route("GET /api/v1/b2b/webhooks/{webhookID}", s.auth(hooksRead, s.getWebhook))
	s.route("DELETE /api/v1/b2b/webhooks/{webhookID}", s.auth(hooksWrite, s.deleteWebhook))
	s.route("PATCH /api/v1/b2b/webhooks/{webhookID}", s.auth(hooksWrite, s.patchWebhook))
	s.route("POST /api/v1/b2b/webhooks/{webhookID}/rotate-secret", s.auth(hooksWrite, s.rotateWebhookSecret))
	s.route("POST /api/v1/b2b/webhooks/{webhookID}/change-url", s.auth(hooksWrite, s.changeWebhookURL))
	s.route("POST /api/v1/b2b/webhooks/{webhookID}/test", s.auth(hooksWrite, s.testWebhook))
	s.route("POST /api/v1/b2b/webhooks/{webhookID}/recover", s.auth(hooksWrite, s.recoverWebhook))
	s.route("POST /api/v1/b2b/webhooks/{webhookID}/enable", s.auth(hooksWrite, s.enableWebhook))
	s.route("GET /api/v1/b2b/webhooks/{webhookID}/deliveries", s.auth(hooksRead, s.listWebhookDeliveries))
	s.route("POST /api/v1/b2b/webhooks/{webhookID}/deliveries/{deliveryID}/retry", s.auth(hooksWrite, s.retryWebhookDelivery))

	// Events: the account's outbox, as its webhook deliveries carry it, read through
	// cursors with long-polls.
	s.route("GET /api/v1/b2b/events", s.auth(skygate.ScopeEventsRead, s.listEvents))
	s.route("GET /api/v1/b2b/events/{eventID}", s.auth(skygate.ScopeEventsRead, s.getEvent))

	// Admin (employees). Every write is audited.
	accounts, apps := skygate.ScopeAdminAccounts, skygate.ScopeAdminApplications
	s.route("POST /api/v1/admin/accounts", s.auth(accounts, s.createAccount))
	s.route("GET /api/v1/admin/accounts", s.auth(accounts, s.listAccounts))
	s.route("GET /api/v1/admin/accounts/{accountID}", s.auth(accounts, s.getAccount))
	s.route("PATCH /api/v1/admin/accounts/{accountID}", s.auth(accounts, s.patchAccount))
	s.route("POST /api/v1/admin/accounts/{accountID}/applications", s.auth(apps, s.createApplication))
	s.route("GET /api/v1/admin/accounts/{accountID}/applications", s.auth(apps, s.listApplications))
	s.route("GET /api/v1/admin/applications/{applicationID}", s.auth(apps, s.getApplication))
	s.route("PATCH /api/v1/admin/applications/{applicationID}", s.auth(apps, s.patchApplication))
	s.route("DELETE /api/v1/admin/applications/{applicationID}", s.auth(apps, s.deleteApplication))
	s.route("POST /api/v1/admin/applications/{applicationID}/rotate-secret", s.auth(apps, s.rotateApplicationSecret))
	s.route("POST /api/v1/admin/applications/{applicationID}/certificates", s.auth(apps, s.createApplicationCertificate))
	s.route("GET /api/v1/admin/audit-events", s.handle(s.authenticateAny([]string{accounts, apps, skygate.ScopeAuditRead}, s.listAuditEvents)))
	s.route("GET /api/v1/admin/accounts/{accountID}/bookings", s.auth(skygate.ScopeAdminAccounts, s.adminListBookings))
	s.route("GET /api/v1/admin/bookings/{bookingID}", s.auth(skygate.ScopeAdminAccounts, s.adminGetBooking))
	s.route("POST /api/v1/admin/bookings/{bookingID}/complete", s.auth(skygate.ScopeAdminAccounts, s.adminCompleteBooking))
	s.route("GET /api/v1/admin/accounts/{accountID}/esim/packages", s.auth(accounts, s.adminESIMPackages))
	s.route("POST /api/v1/admin/accounts/{accountID}/esim/packages", s.auth(accounts, s.adminSetESIMPackages))
	s.route("GET /api/v1/admin/accounts/{accountID}/esim/pool", s.auth(accounts, s.adminPoolCounts))
	s.route("POST /api/v1/admin/accounts/{accountID}/esim/pool", s.auth(accounts, s.adminImportPool))
	s.route("POST /api/v1/admin/accounts/{accountID}/esim/credits", s.auth(accounts, s.adminCredit))
	s.route("GET /api/v1/admin/accounts/{accountID}/esim/billing", s.auth(accounts, s.adminESIMBilling))
	s.route("GET /api/v1/admin/accounts/{accountID}/billing", s.auth(accounts, s.adminESIMBilling))
	s.route("GET /api/v1/admin/accounts/{accountID}/esim/orders", s.auth(accounts, s.adminESIMOrders))
	s.route("GET /api/v1/admin/accounts/{accountID}/esims", s.auth(accounts, s.adminESIMs))
	if s.deps.Prices != nil {
		s.route("GET /api/v1/admin/accounts/{accountID}/fast-track-prices", s.auth(accounts, s.adminFastTrackPrices))
		s.route("PUT /api/v1/admin/accounts/{accountID}/fast-track-prices", s.auth(accounts, s.adminSetFastTrackPrices))
		s.route("GET /api/v1/admin/fast-tracks", s.auth(accounts, s.adminFastTracks))
		s.route("GET /api/v1/admin/fast-tracks/{fastTrackID}/capacity", s.auth(accounts, s.adminFastTrackCapacity))
		s.route("PUT /api/v1/admin/fast-tracks/{fastTrackID}/capacity", s.auth(accounts, s.adminSetFastTrackCapacity))
		s.route("DELETE /api/v1/admin/fast-tracks/{fastTrackID}/capacity", s.auth(accounts, s.adminResetFastTrackCapacity))
	}
	s.route("GET /api/v1/admin/accounts/{accountID}/webhooks", s.auth(accounts, s.adminListWebhooks))
	s.route("GET /api/v1/admin/accounts/{accountID}/webhooks/{webhookID}/deliveries", s.auth(accounts, s.adminListWebhookDeliveries))
}

// route registers h at pattern and remembers the pattern for Routes.
func (s *Server) route(pattern string, h http.Handler) {
	s.handleMux(pattern, h)
	s.patterns = append(s.patterns, pattern)
}

// routeSecret registers h at pattern as route does, and declares its path secret:
// the path names a capability (a bearer token), so the access log, the request's
// trace span and the error log name the pattern's path ("/esim/install/{token}")
// instead of the request's (loggedPath).
func (s *Server) routeSecret(pattern string, h http.Handler) {
	s.route(pattern, h)
	s.declareSecret(pattern)
}

// handleSecret registers h at pattern as handleMux does, with its path secret as
// routeSecret declares it.
func (s *Server) handleSecret(pattern string, h http.Handler) {
	s.handleMux(pattern, h)
	s.declareSecret(pattern)
}

func (s *Server) declareSecret(pattern string) {
	if s.secret == nil {
		s.secret = map[string]bool{}
	}
	s.secret[pattern] = true
}

// handleMux registers h at pattern in ServeMux. route calls it for API routes; the
// pages outside the API (console, docs, development IdP) call it alone, so that
// Routes does not list them.
func (s *Server) handleMux(pattern string, h http.Handler) {
	s.mux.Handle(pattern, h)
}

// Routes lists every registered pattern ("METHOD /path/{param}"), in registration
// order. Tests generate their route matrices (tenant isolation, hostile input) from it.
func (s *Server) Routes() []string { return slices.Clone(s.patterns) }

// auth guards a route with a bearer token that holds scope.
func (s *Server) auth(scope string, h handlerFunc) http.Handler {
	return s.handle(s.authenticate(scope, h))
}

// booking guards a booking route: the scope, then the client certificate.
func (s *Server) booking(scope string, h handlerFunc) http.Handler {
	return s.auth(scope, s.requireClientCert(h))
}
