package httpapi

import (
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestMetricsObserve counts requests of a route by its own method and others (HEAD),
// with common and rare statuses, and of no route, and checks that each lands in its
// own series and nowhere else.
func TestMetricsObserve(t *testing.T) {
	t.Parallel()
	m := newMetrics()
	const route = "GET /v2/catalog/lounges"
	calls := []struct {
		route, method string
		status, times int
	}{
		{route, "GET", 200, 3},
		{route, "GET", 304, 2},
		{route, "HEAD", 200, 1},
		{route, "GET", 418, 1},
		{"unmatched", "GET", 404, 2},
	}
	for _, c := range calls {
		for range c.times {
			m.observe(c.route, c.method, c.status, time.Millisecond)
		}
	}
	for _, c := range calls {
		got := testutil.ToFloat64(m.requests.WithLabelValues(c.route, c.method, strconv.Itoa(c.status)))
		if got != float64(c.times) {
			t.Errorf("%s %s %d: %v requests, want %d", c.route, c.method, c.status, got, c.times)
		}
	}
	if n := testutil.CollectAndCount(m.requests); n != len(calls) {
		t.Errorf("%d request series, want %d", n, len(calls))
	}
	if n := testutil.CollectAndCount(m.duration); n != 2 {
		t.Errorf("%d histograms, want 2 (the route and unmatched)", n)
	}
}

// TestMetricsMethodLabel: methods HTTP does not define, however many and however
// encoded, share one series, "other".
func TestMetricsMethodLabel(t *testing.T) {
	t.Parallel()
	m := newMetrics()
	for i := range 100 {
		m.observe("unmatched", "X-"+strconv.Itoa(i), 405, time.Millisecond)
	}
	m.observe("unmatched", "\xff\xfe", 405, time.Millisecond)
	m.observe("unmatched", "DELETE", 405, time.Millisecond)
	if got := testutil.ToFloat64(m.requests.WithLabelValues("unmatched", "other", "405")); got != 101 {
		t.Errorf("other: %v requests, want 101", got)
	}
	if n := testutil.CollectAndCount(m.requests); n != 2 {
		t.Errorf("%d request series, want 2 (other and DELETE)", n)
	}
}
