package catalog

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/skygate/skygate"
)

// Limits of the list query (CONTRACT §3).
const (
	DefaultLimit = 100
	MaxLimit     = 500
	MaxOffset    = 1_000_000
	MaxNameLen   = 64 // characters (Unicode code points)
)

// Query is a validated, normalized list query. Two requests that mean the same thing
// have equal Queries, which therefore key the page cache and the ETag.
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

// The parameters a list query reads, as indexes of queryParams and rawParams.
const (
	paramLimit = iota
	paramOffset
	paramName
	paramIATA
	paramCountry
)

var queryParams = [...]string{paramLimit: "limit", paramOffset: "offset", paramName: "name", paramIATA: "iata", paramCountry: "country"}

// rawParams are the first value and the number of values of each of queryParams.
type rawParams struct {
	first [len(queryParams)]string
	count [len(queryParams)]int
}

// ParseQuery reads limit, offset, name, iata and country from a raw query string (the
// URL's RawQuery). An empty value counts as absent; other parameters are ignored, so
// that partners may add their own (such as a cache buster). Every invalid parameter is
// reported at once in a CodeBadRequest *skygate.Error, one FieldError per parameter.
//
// It means what url.ParseQuery means: pairs that hold a semicolon or an invalid
// %-escape are skipped. It builds no map, as it runs on every catalog request, and
// has no limit on the number of pairs (url.ParseQuery drops them all past 10,000),
// as it keeps only the five it reads.
func ParseQuery(raw string) (Query, error) {
	var p rawParams
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" || strings.Contains(pair, ";") {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		k, err := queryUnescape(k)
		if err != nil {
			continue
		}
		i := slices.Index(queryParams[:], k)
		if i < 0 {
			continue
		}
		if v, err = queryUnescape(v); err != nil {
			continue
		}
		if p.count[i] == 0 {
			p.first[i] = v
		}
		p.count[i]++
	}
	return p.validate()
}

// queryUnescape is url.QueryUnescape that returns s itself when there is nothing to
// unescape. (Two IndexByte scans: ContainsAny's general loop cost more than the rest of
// parsing a catalog query.)
func queryUnescape(s string) (string, error) {
	if strings.IndexByte(s, '%') < 0 && strings.IndexByte(s, '+') < 0 {
		return s, nil
	}
	return url.QueryUnescape(s)
}

// validate turns the parameters into a Query.
func (p *rawParams) validate() (Query, error) {
	q := DefaultQuery
	var problems []skygate.FieldError
	bad := func(field, msg string) { problems = append(problems, skygate.FieldError{Field: field, Message: msg}) }

	// get returns parameter i's value when it was given once and is not empty.
	get := func(i int) (string, bool) {
		if p.count[i] > 1 {
			bad(queryParams[i], "must be given at most once")
			return "", false
		}
		return p.first[i], p.first[i] != ""
	}

	if s, ok := get(paramLimit); ok {
		n, ok := number(s, MaxLimit)
		if !ok || n < 1 {
			bad("limit", fmt.Sprintf("must be an integer from 1 to %d", MaxLimit))
		}
		q.Limit = n
	}
	if s, ok := get(paramOffset); ok {
		n, ok := number(s, MaxOffset)
		if !ok {
			bad("offset", fmt.Sprintf("must be an integer from 0 to %d", MaxOffset))
		}
		q.Offset = n
	}
	if s, ok := get(paramName); ok {
		switch {
		case !utf8.ValidString(s) || strings.ContainsFunc(s, unicode.IsControl):
			bad("name", "must be text without control characters")
		case utf8.RuneCountInString(s) > MaxNameLen:
			bad("name", fmt.Sprintf("must be at most %d characters", MaxNameLen))
		default:
			q.Name = Fold(strings.TrimSpace(s))
		}
	}
	if s, ok := get(paramIATA); ok {
		if q.IATA, ok = letters(s, 3); !ok {
			bad("iata", "must be a three-letter IATA airport code")
		}
	}
	if s, ok := get(paramCountry); ok {
		if q.Country, ok = letters(s, 2); !ok {
			bad("country", "must be a two-letter ISO 3166-1 country code")
		}
	}
	if problems != nil {
		return DefaultQuery, &skygate.Error{
			Code:    skygate.CodeBadRequest,
			Message: "invalid query parameter",
			Fields:  problems,
		}
	}
	return q, nil
}

// number parses a decimal integer of digits only (no sign, no spaces) up to limit.
func number(s string, limit int) (int, bool) {
	if len(s) > 7 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n <= limit
}

// letters upper-cases s when it is exactly n ASCII letters.
func letters(s string, n int) (string, bool) {
	if len(s) != n {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return "", false
		}
	}
	return strings.ToUpper(s), true
}
