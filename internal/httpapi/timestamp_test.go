package httpapi

import (
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/skygate/skygate/internal/storetest"
)

// TestAppendTimestamp holds appendTimestamp to time.RFC3339Nano in UTC, in any order of
// seconds (the cache must never answer for another second).
func TestAppendTimestamp(t *testing.T) {
	t.Parallel()
	times := []time.Time{
		time.Date(2026, 11, 24, 2, 55, 8, 123456789, time.FixedZone("UZT", 5*3600)),
		time.Date(2026, 11, 24, 2, 55, 8, 0, time.UTC),
		time.Date(2026, 11, 24, 2, 55, 8, 100000000, time.UTC),
		time.Date(2026, 11, 24, 2, 55, 9, 1, time.UTC),
		time.Date(2026, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(1999, 1, 1, 0, 0, 0, 10, time.UTC),
		time.Unix(0, 0),
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		times = append(times, time.Unix(1_790_000_000+r.Int64N(5), r.Int64N(1e9)))
	}
	for _, at := range times {
		want := at.UTC().Format(time.RFC3339Nano)
		if got := string(appendTimestamp(nil, at)); got != want {
			t.Fatalf("appendTimestamp(%v) = %q, want %q", at, got, want)
		}
	}
}

// TestSecondText: each layout's cached text is time.Format's for that very second, in
// any order of seconds and locations.
func TestSecondText(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	zones := []*time.Location{time.UTC, time.FixedZone("UZT", 5*3600), time.FixedZone("W", -9*3600-1800)}
	for _, c := range []*secondText{&stampSeconds, &dateSeconds, {layout: time.RFC1123Z}} {
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
	s := NewServer(Deps{Store: storetest.MustSQLite(t), TokenEndpoint: none, JWKS: none, Discovery: none,
		Now: func() time.Time { return at }})
	for _, path := range []string{"/healthz", "/nope", "/v2/catalog/lounges"} {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if got := rec.Header().Values("Date"); len(got) != 1 || got[0] != "Tue, 24 Nov 2026 22:04:05 GMT" {
			t.Errorf("GET %s (%d): Date %q", path, rec.Code, got)
		}
	}
}
