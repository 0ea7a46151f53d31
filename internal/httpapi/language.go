package httpapi

import (
	"net/http"
)

// requestLanguage negotiates the response language from Accept-Language (its first
// field line, as Header.Get reads it). The key is given in canonical form, so the hot
// path reads the map without canonicalizing it on every request.
func (s *Server) requestLanguage(r *http.Request) string {
	v := r.Header["Accept-Language"]
	if len(v) == 0 {
		return s.languages.Negotiate("")
	}
	return s.languages.Negotiate(v[0])
}
