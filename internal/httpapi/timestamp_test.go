package httpapi

import (
	"math/rand/v2"
	"testing"
	"time"
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
