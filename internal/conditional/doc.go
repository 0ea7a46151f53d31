// Package conditional owns the evaluation of HTTP conditional GET and HEAD requests
// (RFC 9110 §13): whether a request that carries If-None-Match or If-Modified-Since may
// be answered 304 Not Modified. Since a gzip-coded representation has an entity tag of
// its own, it also owns the choice of that coding (AcceptsGzip), so that the server's
// compression and the assets stored gzip-coded read Accept-Encoding alike.
//
// The rules, which the OpenAPI document repeats for the catalog:
//
//   - Only GET and HEAD are conditional here; other methods never get 304.
//   - If-None-Match, when present with a non-blank value, decides alone and
//     If-Modified-Since is ignored (RFC 9110 §13.2.2). Its value is a list of entity tags
//     (several header lines are one list). Comparison is weak: a W/ prefix is ignored on
//     both sides. "*" matches the current representation. Malformed elements are skipped.
//   - The gzip-coded variant of a representation has the identity tag with GzipSuffix
//     before the closing quote ("v1" and "v1-gzip"), and If-None-Match naming either
//     matches: a client that cached the gzip body revalidates it like the identity one.
//   - Otherwise If-Modified-Since is used when it is exactly one valid HTTP-date (IMF-fixdate,
//     RFC 850 or asctime, as http.ParseTime reads them) and the resource has a
//     modification time: 304 when that time, truncated to whole seconds, is not after the
//     date. Invalid dates are ignored.
package conditional
