package conditional

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// NotModified reports whether r may be answered 304 Not Modified for the current
// representation, whose entity tag is etag (as sent in the ETag header, strong or weak;
// "" when it has none) and whose modification time is lastModified (zero when unknown).
// The caller must only ask for a resource that exists, since "*" matches it.
func NotModified(r *http.Request, etag string, lastModified time.Time) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	// A blank If-None-Match is not a valid list, and net/http's own file server treats
	// it as absent too.
	if inm := r.Header.Values("If-None-Match"); slices.ContainsFunc(inm, nonBlank) {
		return slices.ContainsFunc(inm, func(field string) bool { return ETagListMatches(field, etag) })
	}
	ims := r.Header.Values("If-Modified-Since")
	if len(ims) != 1 || lastModified.IsZero() {
		return false
	}
	since, err := http.ParseTime(strings.TrimSpace(ims[0]))
	if err != nil {
		return false
	}
	return !lastModified.Truncate(time.Second).After(since)
}

func nonBlank(line string) bool { return strings.Trim(line, " \t") != "" }

// GzipSuffix ends the opaque-tag of a gzip-coded representation's entity tag, which is
// the identity representation's tag with GzipSuffix before its closing quote: RFC 9110
// §8.8.3 gives representations that differ in content coding different strong tags.
const GzipSuffix = "-gzip"

// GzipETag returns the entity tag of the gzip-coded variant of the representation
// whose entity tag is etag: "v1" becomes "v1-gzip", W/"v1" becomes W/"v1-gzip".
func GzipETag(etag string) string {
	i := strings.LastIndexByte(etag, '"')
	if i < 0 {
		return etag + GzipSuffix
	}
	return etag[:i] + GzipSuffix + etag[i:]
}

// AcceptsGzip reports whether the answer to r may be gzip-coded: r is not HEAD and its
// Accept-Encoding (the first field line) gives gzip, or when gzip is not named "*", a
// qvalue above 0 (RFC 9110 §12.5.3: q=0 means not acceptable; no field or an empty one,
// identity only). Out-of-range qvalues are clamped to 0–1 and unparsable ones are 0, as
// gzhttp reads them, so that the server's compression and the assets it serves
// gzip-coded already make the same choice.
func AcceptsGzip(r *http.Request) bool {
	if r.Method == http.MethodHead {
		return false
	}
	field := r.Header.Get("Accept-Encoding")
	if field == "" {
		return false
	}
	star := -1.0
	for element := range strings.SplitSeq(field, ",") {
		coding, q := codingQ(element)
		switch {
		case coding == "gzip":
			return q > 0
		case coding == "*" && star < 0:
			star = q
		}
	}
	return star > 0
}

// codingQ splits one Accept-Encoding element into its coding, lower-cased, and its
// qvalue (1 when absent; the last q parameter when several).
func codingQ(element string) (coding string, q float64) {
	name, params, _ := strings.Cut(element, ";")
	coding, q = strings.ToLower(strings.TrimSpace(name)), 1
	for p := range strings.SplitSeq(params, ";") {
		if p = strings.TrimSpace(p); len(p) >= 2 && strings.EqualFold(p[:2], "q=") {
			q, _ = strconv.ParseFloat(p[2:], 64)
			q = min(max(q, 0), 1)
		}
	}
	return coding, q
}

// ETagListMatches reports whether an If-None-Match field value (a comma-separated list of
// entity tags, or "*") matches etag by weak comparison. An element that is etag's gzip
// variant (GzipETag) matches too: the client holds the same content, gzip-coded.
// Malformed elements are skipped.
func ETagListMatches(list, etag string) bool {
	want := opaque(etag)
	for s := list; ; {
		s = strings.TrimLeft(s, " \t,")
		if s == "" {
			return false
		}
		tag, rest, ok := next(s)
		if !ok {
			// Skip the malformed element up to the next comma.
			if _, rest, ok = strings.Cut(s, ","); !ok {
				return false
			}
		} else if tag == "*" || (want != "" && (tag == want || gzipVariant(tag, want))) {
			return true
		}
		s = rest
	}
}

// gzipVariant reports whether tag is the gzip variant of want (GzipETag), both quoted
// opaque-tags without W/.
func gzipVariant(tag, want string) bool {
	n := len(want) - 1 // want without its closing quote
	return len(tag) == len(want)+len(GzipSuffix) && tag[:n] == want[:n] && tag[n:len(tag)-1] == GzipSuffix
}

// next parses the element at the start of s (which does not start with OWS or a comma):
// "*" or [W/] DQUOTE *etagc DQUOTE followed by OWS and a comma or the end. It returns
// the element without its W/ prefix and what follows; ok is false when it is malformed.
func next(s string) (tag, rest string, ok bool) {
	if s[0] == '*' {
		tag, rest = "*", s[1:]
	} else {
		q := strings.TrimPrefix(s, "W/")
		if q == "" || q[0] != '"' {
			return "", "", false
		}
		i := strings.IndexByte(q[1:], '"')
		if i < 0 || !validOpaque(q[1:i+1]) {
			return "", "", false
		}
		tag, rest = q[:i+2], q[i+2:]
	}
	rest = strings.TrimLeft(rest, " \t")
	return tag, rest, rest == "" || rest[0] == ','
}

// opaque returns the opaque-tag of an entity tag (the quoted part without W/), or "" when
// etag is not a valid entity tag.
func opaque(etag string) string {
	etag = strings.TrimPrefix(etag, "W/")
	if len(etag) < 2 || etag[0] != '"' || etag[len(etag)-1] != '"' || !validOpaque(etag[1:len(etag)-1]) {
		return ""
	}
	return etag
}

// validOpaque reports whether every byte of s is an etagc: %x21 / %x23-7E / obs-text.
func validOpaque(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x21 || c == '"' || c == 0x7f {
			return false
		}
	}
	return true
}
