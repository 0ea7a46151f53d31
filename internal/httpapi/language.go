package httpapi

import (
	"net/http"

	"github.com/skygate/skygate/internal/i18n"
)

// requestLanguage negotiates the response language from Accept-Language (its first
// field line, as Header.Get reads it). The key is given in canonical form, so the hot
// path reads the map without canonicalizing it on every request.
func requestLanguage(r *http.Request) string {
	v := r.Header["Accept-Language"]
	if len(v) == 0 {
		return i18n.Negotiate("")
	}
	return i18n.Negotiate(v[0])
}
