package httpapi

import (
	"net/http"

	"github.com/skygate/skygate/internal/i18n"
)

// requestLanguage negotiates the response language from Accept-Language (its first
// field line, as Header.Get reads it).
func (s *Server) requestLanguage(r *http.Request) string {
	return i18n.Negotiate(r.Header.Get("Accept-Language"))
}
