package httpapi

import (
	"net/http"
	"strings"
)

// exactRoutes finds the handler of a route whose pattern is a method and a literal path
// ("GET /v2/catalog/lounges") with one map lookup, before http.ServeMux walks its
// routing tree: the catalog lists are the hottest routes, and ServeMux's general
// matching (host, path cleaning, wildcards, redirects) cost them about half a
// microsecond.
//
// It answers only where ServeMux would pick the same pattern: the same method (HEAD,
// which ServeMux also matches against GET patterns, is left to it), no escaped form of
// the path (r.URL.RawPath empty, so the path ServeMux matches is r.URL.Path itself),
// and a path registered as a whole. Such a path is clean, so ServeMux would neither
// redirect nor clean it, and a literal pattern with a method is the most specific
// pattern there is. Every other request goes to ServeMux, which still has every route.
type exactRoutes map[string]exactRoute

type exactRoute struct {
	pattern string
	h       http.Handler
}

// add remembers pattern when it is a method and a literal path, and ignores it
// otherwise (ServeMux has it either way).
func (e exactRoutes) add(pattern string, h http.Handler) {
	method, path, ok := strings.Cut(pattern, " ")
	if !ok || method == "" || method == http.MethodHead || !strings.HasPrefix(path, "/") ||
		strings.ContainsAny(path, "{}") || strings.HasSuffix(path, "/") {
		return
	}
	e[pattern] = exactRoute{pattern: pattern, h: h}
}

// maxExactKey bounds the key built on the stack; longer requests go to ServeMux.
const maxExactKey = 128

// lookup returns the route r's method and path name, if it is one of e's.
func (e exactRoutes) lookup(r *http.Request) (exactRoute, bool) {
	if r.URL.RawPath != "" || len(r.Method)+1+len(r.URL.Path) > maxExactKey || r.Method == http.MethodHead {
		return exactRoute{}, false
	}
	var buf [maxExactKey]byte
	key := append(append(append(buf[:0], r.Method...), ' '), r.URL.Path...)
	route, ok := e[string(key)] // the conversion in a map index does not allocate
	return route, ok
}
