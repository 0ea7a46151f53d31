package identity

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/skygate/skygate"
)

// MaxAudiences bounds an application's audiences, and MaxAudienceLen each one, in bytes:
// every token of the application carries them all.
const (
	MaxAudiences   = 10
	MaxAudienceLen = 255
)

// checkAudiences checks an application's audiences: at most MaxAudiences, each an
// absolute URI (RFC 3986 §4.3: a scheme, no fragment) of at most MaxAudienceLen bytes
// of printable ASCII, as RFC 8707 §2 asks of a resource indicator. An https URL with a
// host is the usual form; a URN (urn:example:api) is absolute too.
func checkAudiences(field string, audiences []string) []skygate.FieldError {
	if len(audiences) > MaxAudiences {
		return []skygate.FieldError{{Field: field, Message: fmt.Sprintf("must list at most %d audiences", MaxAudiences)}}
	}
	var fields []skygate.FieldError
	for i, a := range audiences {
		if msg := checkAudience(a); msg != "" {
			fields = append(fields, skygate.FieldError{Field: fmt.Sprintf("%s[%d]", field, i), Message: msg})
		}
	}
	return fields
}

// checkAudience returns what is wrong with one audience, or "".
func checkAudience(a string) string {
	switch {
	case a == "":
		return "must not be empty"
	case len(a) > MaxAudienceLen:
		return fmt.Sprintf("must be at most %d bytes", MaxAudienceLen)
	case strings.ContainsFunc(a, func(r rune) bool { return r <= 0x20 || r >= 0x7f }):
		return "must be printable ASCII without spaces (percent-encode anything else)"
	}
	u, err := url.Parse(a)
	switch {
	case err != nil || !u.IsAbs():
		return "must be an absolute URI with a scheme, such as https://api.example.com"
	case u.Fragment != "" || strings.Contains(a, "#"):
		return "must not have a fragment"
	case u.Host == "" && (u.Opaque == "" || u.Scheme == "https" || u.Scheme == "http"):
		return "must name a host, such as https://api.example.com"
	}
	return ""
}

// uniq returns ss without repeats, in first-seen order; nil for none.
func uniq(ss []string) []string {
	var out []string
	for _, s := range ss {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
