package httpapi

import (
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
	m.Handle("POST /oauth/v2/token", s.deps.TokenEndpoint)
	m.Handle("GET /.well-known/jwks.json", s.deps.JWKS)
	m.Handle("GET /.well-known/openid-configuration", s.deps.Discovery)
	m.Handle("GET /.well-known/oauth-authorization-server", s.deps.Discovery)

	// Catalog: bearer token only, on both listeners.
	m.Handle("GET /v2/catalog/lounges", s.handle(s.authenticate(skygate.ScopeCatalogLoungesRead, s.catalogList(catalog.KindLounge))))
	m.Handle("GET /v2/catalog/lounges/{id}", s.handle(s.authenticate(skygate.ScopeCatalogLoungesRead, s.catalogItem(catalog.KindLounge))))
	m.Handle("GET /v2/catalog/fast-tracks", s.handle(s.authenticate(skygate.ScopeCatalogFastTrackRead, s.catalogList(catalog.KindFastTrack))))
	m.Handle("GET /v2/catalog/fast-tracks/{id}", s.handle(s.authenticate(skygate.ScopeCatalogFastTrackRead, s.catalogItem(catalog.KindFastTrack))))

}
