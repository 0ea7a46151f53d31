package httpapi

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/skygate/skygate/internal/storetest"
)

// TestSecondText: each layout's cached text is time.Format's for that very second, in
// any order of seconds and locations.
func TestSecondText(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	zones := []*time.Location{time.UTC, time.FixedZone("UZT", 5*3600), time.FixedZone("W", -9*3600-1800)}
	for _, c := range []*secondText{&dateSeconds, {layout: time.RFC1123Z}} {
		for range 2000 {
			at := time.Unix(1_790_000_000+r.Int64N(4), r.Int64N(1e9)).In(zones[r.IntN(len(zones))])
			got := c.at(at)
			if want := at.UTC().Format(c.layout); len(got) != 1 || cap(got) != 1 || got[0] != want {
				t.Fatalf("%q at %v = %q (cap %d), want [%q]", c.layout, at, got, cap(got), want)
			}
		}
	}
}

// TestDateHeader: every response the middleware writes, a problem+json from ServeMux
// included, carries the Date of the server's clock.
func TestDateHeader(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 25, 3, 4, 5, 600, time.FixedZone("UZT", 5*3600))
	none := http.NotFoundHandler()
	s := NewServer(Deps{Directory: storetest.MustSQLite(t), TokenEndpoint: none, JWKS: none, Discovery: none,
		Now: func() time.Time { return at }})
	for _, path := range []string{"/healthz", "/nope", "/v2/catalog/lounges"} {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if got := rec.Header().Values("Date"); len(got) != 1 || got[0] != "Tue, 24 Nov 2026 22:04:05 GMT" {
			t.Errorf("GET %s (%d): Date %q", path, rec.Code, got)
		}
	}
}

// TestDateHeaderFullMap: a response whose header map already holds a Go map group's
// eight entries gets net/http's Date (the time it writes the response) instead of the
// cached one, and still exactly one; with room, the server's clock decides.
func TestDateHeaderFullMap(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 25, 3, 4, 5, 600, time.UTC)
	none := http.NotFoundHandler()
	s := NewServer(Deps{Directory: storetest.MustSQLite(t), TokenEndpoint: none, JWKS: none, Discovery: none,
		Now: func() time.Time { return at }})
	for _, tc := range []struct {
		fields int
		cached bool
	}{{0, true}, {mapGroupSlots - 1, true}, {mapGroupSlots, false}, {mapGroupSlots + 3, false}} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rw := &responseWriter{ResponseWriter: w, s: s, r: r}
			for i := range tc.fields {
				rw.Header()[fmt.Sprintf("X-Field-%d", i)] = []string{"v"}
			}
			rw.WriteHeader(http.StatusNoContent)
		}))
		before := time.Now().Truncate(time.Second)
		resp, err := srv.Client().Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		srv.Close()
		got := resp.Header.Values("Date")
		if len(got) != 1 {
			t.Fatalf("%d fields: Date %q, want one", tc.fields, got)
		}
		date, err := http.ParseTime(got[0])
		switch {
		case err != nil:
			t.Errorf("%d fields: Date %q: %v", tc.fields, got[0], err)
		case tc.cached && !date.Equal(at.Truncate(time.Second)):
			t.Errorf("%d fields: Date %v, want the server's clock %v", tc.fields, date, at)
		case !tc.cached && (date.Before(before) || date.After(time.Now())):
			t.Errorf("%d fields: Date %v, want net/http's, about now", tc.fields, date)
		}
	}
}
