package catalog

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/skygate/skygate"
)

// Limits of the list query.
const (
	DefaultLimit = 100
	MaxLimit     = 500
	MaxOffset    = 1_000_000
	MaxNameLen   = 64 // characters (Unicode code points)
)

// Query is a validated, normalized list query. Two requests that mean the same thing
// have equal Queries, and so share a page and its ETag.
type Query struct {
	Limit  int
	Offset int
	// Name is the Fold of the trimmed name filter; "" means no filter.
	Name string
	// IATA is the hub's IATA code in upper case; "" means any hub.
	IATA string
	// Country is the hub's ISO 3166-1 alpha-2 country in upper case; "" means any.
	Country string
}

// DefaultQuery is the query of a request without parameters.
var DefaultQuery = Query{Limit: DefaultLimit}

// ParseQuery reads limit, offset, name, iata and country from a raw query string (the
// URL's RawQuery), as url.ParseQuery decodes it; a query it cannot decode (a bad
// percent-escape, a semicolon) is invalid as a whole. An empty value counts as absent; other parameters are ignored, so that partners may
// add their own (such as a cache buster). Every invalid parameter is reported at once
// in a CodeBadRequest *skygate.Error, one FieldError per parameter.
func ParseQuery(raw string) (Query, error) {
	q := DefaultQuery
	var problems []skygate.FieldError
	bad := func(field, msg string) { problems = append(problems, skygate.FieldError{Field: field, Message: msg}) }
	values, err := url.ParseQuery(raw)
	if err != nil {
		bad("query", "must be a well-formed query string (percent-encoded, pairs separated by &)")
	}

	get := func(name string) (string, bool) { return OneValue(values, name, bad) }

	if s, ok := get("limit"); ok {
		if q.Limit, ok = number(s, 1, MaxLimit); !ok {
			bad("limit", fmt.Sprintf("must be an integer from 1 to %d", MaxLimit))
		}
	}
	if s, ok := get("offset"); ok {
		if q.Offset, ok = number(s, 0, MaxOffset); !ok {
			bad("offset", fmt.Sprintf("must be an integer from 0 to %d", MaxOffset))
		}
	}
	if s, ok := get("name"); ok {
		switch {
		case !utf8.ValidString(s) || strings.ContainsFunc(s, unicode.IsControl):
			bad("name", "must be text without control characters")
		case utf8.RuneCountInString(s) > MaxNameLen:
			bad("name", fmt.Sprintf("must be at most %d characters", MaxNameLen))
		default:
			q.Name = Fold(strings.TrimSpace(s))
		}
	}
	if s, ok := get("iata"); ok {
		if q.IATA, ok = letters(s, 3); !ok {
			bad("iata", "must be a three-letter IATA airport code")
		}
	}
	if s, ok := get("country"); ok {
		if q.Country, ok = letters(s, 2); !ok {
			bad("country", "must be a two-letter ISO 3166-1 country code")
		}
	}
	if problems != nil {
		return DefaultQuery, &skygate.Error{Code: skygate.CodeBadRequest, Message: "invalid query parameter", Fields: problems}
	}
	return q, nil
}

// OneValue returns the value of the query parameter name when it was given once and
// is not empty; false when it is absent or empty (an empty value counts as absent).
// Given more than once, it calls bad(name, "must be given at most once") and returns
// false: the rule every catalog query shares.
func OneValue(values url.Values, name string, bad func(field, msg string)) (string, bool) {
	switch v := values[name]; len(v) {
	case 0:
		return "", false
	case 1:
		return v[0], v[0] != ""
	default:
		bad(name, "must be given at most once")
		return "", false
	}
}

// number parses s, decimal digits only (no sign, no spaces), as an integer from lo to
// hi.
func number(s string, lo, hi int) (int, bool) {
	if strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && lo <= n && n <= hi
}

// letters upper-cases s when it is exactly n ASCII letters.
func letters(s string, n int) (string, bool) {
	isLetter := func(r rune) bool { return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' }
	if len(s) != n || strings.ContainsFunc(s, func(r rune) bool { return !isLetter(r) }) {
		return "", false
	}
	return strings.ToUpper(s), true
}
