package httpapi

import (
	"net/http"

	"github.com/skygate/skygate/internal/identity"
)

// patchApplication changes an application with JSON merge-patch semantics (RFC 7396;
// application/merge-patch+json or application/json): its JWK Set of private_key_jwt
// client authentication, replaced by an object and removed by null, and its audiences,
// replaced by an array and removed by null or []. The token endpoint reads the set
// from the store on every assertion, so a change applies at once on every replica.
// Audiences come from the application cache: forgetting the application here makes
// the next token of this replica carry them; other replicas read them within
// ApplicationCacheTTL. The answer is the application with its set.
func (s *Server) patchApplication(w http.ResponseWriter, r *http.Request) error {
	req := identity.ApplicationPatch{ApplicationID: r.PathValue("applicationID")}
	if _, err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	app, err := s.deps.Identity.PatchApplication(r.Context(), actor(r.Context()), req)
	if err != nil {
		return err
	}
	s.deps.Applications.Forget(app.ClientID)
	return writeJSON(w, http.StatusOK, app)
}
