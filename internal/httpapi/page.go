package httpapi

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/skygate/skygate"
)

// List paging limits shared by every paginated route but the catalog's (which has its
// own parser with the same ranges).
const (
	defaultLimit = 100
	maxLimit     = 500
	maxOffset    = 1_000_000
)

// parsePage reads limit (1–500, default 100) and offset (0–1,000,000, default 0);
// anything else is 400 naming the parameter. A query string that url.ParseQuery
// cannot decode is 400 as a whole, rather than read without the pairs it drops.
func parsePage(r *http.Request) (skygate.Page, error) {
	p := skygate.Page{Limit: defaultLimit}
	q, err := parseQuery(r)
	if err != nil {
		return p, err
	}
	for _, f := range []struct {
		name     string
		dst      *int
		min, max int
	}{{"limit", &p.Limit, 1, maxLimit}, {"offset", &p.Offset, 0, maxOffset}} {
		v := q.Get(f.name)
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < f.min || n > f.max {
			return p, skygate.BadParameter(f.name, "must be an integer from "+strconv.Itoa(f.min)+" to "+strconv.Itoa(f.max))
		}
		*f.dst = n
	}
	return p, nil
}

// parseQuery decodes the query string; one that url.ParseQuery cannot decode is 400
// as a whole, rather than read without the pairs it drops.
func parseQuery(r *http.Request) (url.Values, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, skygate.BadParameter("query", "must be a well-formed query string (percent-encoded, pairs separated by &)")
	}
	return q, nil
}

// writePaged answers 200 with what read returns for the request's page (parsePage).
func writePaged[T any](w http.ResponseWriter, r *http.Request, read func(skygate.Page) (T, error)) error {
	p, err := parsePage(r)
	if err != nil {
		return err
	}
	return reply(w, http.StatusOK)(read(p))
}

// writeList answers 200 with the items and total that list returns for the request's
// page, as a skygate.List.
func writeList[T any](w http.ResponseWriter, r *http.Request, list func(skygate.Page) ([]T, int, error)) error {
	return writePaged(w, r, func(p skygate.Page) (*skygate.List[T], error) {
		items, total, err := list(p)
		return skygate.NewList(items, p.Offset, total), err
	})
}
