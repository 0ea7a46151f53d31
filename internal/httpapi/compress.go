package httpapi

import (
	"net/http"
	"strings"

	"github.com/klauspost/compress/gzhttp"
	"github.com/klauspost/compress/gzip"

	"github.com/skygate/skygate/internal/conditional"
)

// Response compression on the partner listeners: the gzip content coding (RFC 9110
// §8.4.1.3) for the clients that accept it, through gzhttp. The rules, which the
// OpenAPI document repeats:
//
//   - A response is gzip-coded when the request is not HEAD, its Accept-Encoding accepts
//     gzip (conditional.AcceptsGzip), its media type is one of compressibleTypes, its body is at least
//     compressMinSize bytes, and it is not already content-coded or a range (the console
//     and docs assets arrive gzip-coded from package web; PNG passes and QR codes are
//     never compressed). 204 and 304 have no body to code.
//   - Every response carries Vary: Accept-Encoding, once, coded or not: the answer to
//     another Accept-Encoding may differ. Handlers that vary on more add to that line
//     (addVary).
//   - A gzip-coded response's strong ETag is the identity one's gzip variant
//     (conditional.GzipETag); If-None-Match naming either matches (conditional), and a
//     304 carries the tag its 200 would have had (sentETag).
//
// The access log's byte count is of the body as sent, gzip-coded or not. Credentials
// travel in the Authorization header, never in cookies a browser would attach to a
// forged request, so compressed answers give BREACH-style guessing nothing to work on.

// compressMinSize is the smallest body that is gzip-coded: below about a packet,
// coding saves no round trip.
const compressMinSize = 1024

// compressibleTypes are the media types gzip shrinks: JSON and problem bodies, the
// OpenAPI document (JSON and YAML) and the text of the console and docs.
var compressibleTypes = map[string]bool{
	"application/json":         true,
	"application/problem+json": true,
	"application/yaml":         true,
	"application/javascript":   true,
	"text/html":                true,
	"text/css":                 true,
	"text/javascript":          true,
	"text/plain":               true,
	"image/svg+xml":            true,
}

// compressibleType reports whether a Content-Type value names one of
// compressibleTypes, parameters aside.
func compressibleType(contentType string) bool {
	mediaType, _, _ := strings.Cut(contentType, ";")
	return compressibleTypes[strings.ToLower(strings.TrimSpace(mediaType))]
}

// gzipWrapper is gzhttp configured by the rules above: gzip only (no zstd), so that one
// suffix names every coded variant; "*" in Accept-Encoding counts as RFC 9110 §12.5.3
// says; gzip's fastest level, since every answer is coded anew (docs/performance.md).
func gzipWrapper() func(http.Handler) http.HandlerFunc {
	wrap, err := gzhttp.NewWrapper(
		gzhttp.EnableZstd(false),
		gzhttp.CompressionLevel(gzip.BestSpeed),
		gzhttp.AcceptWildcards(true),
		gzhttp.MinSize(compressMinSize),
		gzhttp.ContentTypeFilter(compressibleType),
		gzhttp.SuffixETag(conditional.GzipSuffix),
	)
	if err != nil {
		panic("httpapi: gzhttp options: " + err.Error()) // constant options: a programming error
	}
	return wrap
}

// compress gzip-codes next's responses by the rules above. A request that
// conditional.AcceptsGzip refuses goes straight to next, with only the Vary field added: gzhttp then never
// codes, whatever it would have read in Accept-Encoding, which is what sentETag says.
func compress(next http.Handler) http.Handler {
	gz := gzipWrapper()(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !conditional.AcceptsGzip(r) {
			w.Header().Add("Vary", "Accept-Encoding")
			next.ServeHTTP(w, r)
			return
		}
		gz.ServeHTTP(w, r)
	})
}

// sentETag returns the entity tag that compress leaves on the answer to r for a
// representation of contentType and size bytes whose identity tag is etag: the gzip
// variant's when compress codes it. A 304 must carry the ETag its 200 would have
// (RFC 9110 §15.4.5), and compress cannot tell, having no body to measure.
func sentETag(r *http.Request, etag, contentType string, size int) string {
	if size >= compressMinSize && compressibleType(contentType) && conditional.AcceptsGzip(r) {
		return conditional.GzipETag(etag)
	}
	return etag
}

// addVary adds field to the response's Vary list unless it lists it already, keeping
// one field line: compress has begun the list with Accept-Encoding.
func addVary(h http.Header, field string) {
	lines := h["Vary"]
	for _, line := range lines {
		for listed := range strings.SplitSeq(line, ",") {
			if listed = strings.TrimSpace(listed); listed == "*" || strings.EqualFold(listed, field) {
				return
			}
		}
	}
	if len(lines) == 0 {
		h.Set("Vary", field)
		return
	}
	h["Vary"] = append(lines[:0], strings.Join(lines, ", ")+", "+field)
}
