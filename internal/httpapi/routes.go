package httpapi

import (
	"net/http"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/catalog"
)

// routes registers every route of the service. Authentication and scopes are visible
// here, route by route.
func (s *Server) routes() {
	m := s.mux
	// Operations.
	m.Handle("GET /healthz", s.handle(s.healthz))
	m.Handle("GET /readyz", s.handle(s.readyz))
	m.Handle("GET /metrics", s.metrics.handler())
	m.Handle("GET /openapi.yaml", s.handle(s.openAPI("application/yaml", s.deps.OpenAPIYAML)))
	m.Handle("GET /openapi.json", s.handle(s.openAPI("application/json", s.deps.OpenAPIJSON)))

	// Identity.
	m.Handle("POST /oauth/v2/token", s.limitTokens(s.deps.TokenEndpoint))
	m.Handle("GET /.well-known/jwks.json", s.deps.JWKS)
	m.Handle("GET /.well-known/openid-configuration", s.deps.Discovery)
	m.Handle("GET /.well-known/oauth-authorization-server", s.deps.Discovery)

	// Catalog: bearer token only, on both listeners.
	m.Handle("GET /v2/catalog/lounges", s.handle(s.authenticate(skygate.ScopeCatalogLoungesRead, s.catalogList(catalog.KindLounge))))
	m.Handle("GET /v2/catalog/lounges/{id}", s.handle(s.authenticate(skygate.ScopeCatalogLoungesRead, s.catalogItem(catalog.KindLounge))))
	m.Handle("GET /v2/catalog/fast-tracks", s.handle(s.authenticate(skygate.ScopeCatalogFastTrackRead, s.catalogList(catalog.KindFastTrack))))
	m.Handle("GET /v2/catalog/fast-tracks/{id}", s.handle(s.authenticate(skygate.ScopeCatalogFastTrackRead, s.catalogItem(catalog.KindFastTrack))))

	// Fast-track booking: bearer token and a client certificate (mTLS listener).
	write, read := skygate.ScopeBookingWrite, skygate.ScopeBookingRead
	m.Handle("POST /v2/b2b/booking/fast-tracks", s.booking(write, s.createBooking))
	m.Handle("GET /v2/b2b/booking/fast-tracks", s.booking(read, s.listBookings))
	m.Handle("GET /v2/b2b/booking/fast-tracks/{bookingID}", s.booking(read, s.getBooking))
	m.Handle("POST /v2/b2b/booking/fast-tracks/{bookingID}/confirm", s.booking(write, s.confirmBooking))
	m.Handle("POST /v2/b2b/booking/fast-tracks/{bookingID}/cancel", s.booking(write, s.cancelBooking))
	m.Handle("GET /v2/b2b/booking/fast-tracks/{bookingID}/pass", s.booking(read, s.getPass))
	m.Handle("POST /v2/sandbox/booking/fast-tracks/{bookingID}/simulate", s.booking(write, s.simulateBooking))

	// Admin (employees). Every write is audited.
	accounts, apps := skygate.ScopeAdminAccounts, skygate.ScopeAdminApplications
	m.Handle("POST /api/v1/admin/accounts", s.handle(s.authenticate(accounts, s.createAccount)))
	m.Handle("GET /api/v1/admin/accounts", s.handle(s.authenticate(accounts, s.listAccounts)))
	m.Handle("GET /api/v1/admin/accounts/{accountID}", s.handle(s.authenticate(accounts, s.getAccount)))
	m.Handle("PATCH /api/v1/admin/accounts/{accountID}", s.handle(s.authenticate(accounts, s.patchAccount)))
	m.Handle("POST /api/v1/admin/accounts/{accountID}/applications", s.handle(s.authenticate(apps, s.createApplication)))
	m.Handle("GET /api/v1/admin/accounts/{accountID}/applications", s.handle(s.authenticate(apps, s.listApplications)))
	m.Handle("GET /api/v1/admin/applications/{applicationID}", s.handle(s.authenticate(apps, s.getApplication)))
	m.Handle("DELETE /api/v1/admin/applications/{applicationID}", s.handle(s.authenticate(apps, s.deleteApplication)))
	m.Handle("POST /api/v1/admin/applications/{applicationID}/rotate-secret", s.handle(s.authenticate(apps, s.rotateApplicationSecret)))
	m.Handle("GET /api/v1/admin/audit-events", s.handle(s.authenticateAny([]string{accounts, apps}, s.listAuditEvents)))
	m.Handle("GET /api/v1/admin/bookings/{bookingID}", s.handle(s.authenticate(skygate.ScopeAdminAccounts, s.adminGetBooking)))
	m.Handle("POST /api/v1/admin/bookings/{bookingID}/complete", s.handle(s.authenticate(skygate.ScopeAdminAccounts, s.adminCompleteBooking)))

}

// booking guards a booking route: the scope, then the client certificate.
func (s *Server) booking(scope string, h handlerFunc) http.Handler {
	return s.handle(s.authenticate(scope, s.requireClientCert(h)))
}
