package conditional

import (
	"net/http"
	"slices"
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

// ETagListMatches reports whether an If-None-Match field value (a comma-separated list of
// entity tags, or "*") matches etag by weak comparison. Malformed elements are skipped.
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
		} else if tag == "*" || (tag == want && want != "") {
			return true
		}
		s = rest
	}
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
