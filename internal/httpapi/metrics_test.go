package httpapi

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
)

// TestMetricsObserve records requests of a route by its own method and others (HEAD),
// with common and rare statuses, and of no route, and checks that each lands in its
// own series, labelled as the semantic conventions say, and nowhere else.
func TestMetricsObserve(t *testing.T) {
	t.Parallel()
	m := newMetrics()
	calls := []struct {
		pattern, method string
		status, times   int
		route           string
	}{
		{"GET /v2/catalog/lounges/{id}", "GET", 200, 3, "/v2/catalog/lounges/{id}"},
		{"GET /v2/catalog/lounges/{id}", "GET", 304, 2, "/v2/catalog/lounges/{id}"},
		{"GET /v2/catalog/lounges/{id}", "HEAD", 200, 1, "/v2/catalog/lounges/{id}"},
		{"GET /v2/catalog/lounges/{id}", "GET", 418, 1, "/v2/catalog/lounges/{id}"},
		{"/docs/", "GET", 200, 1, "/docs/"},
		{"", "GET", 404, 2, "unmatched"},
		{"", "GET", 999, 1, "unmatched"},
	}
	for _, c := range calls {
		for range c.times {
			m.observe(c.pattern, c.method, c.status, time.Millisecond)
		}
	}
	for _, c := range calls {
		h := m.duration.WithLabelValues(c.route, c.method, strconv.Itoa(c.status))
		if n := sampleCount(t, h); n != uint64(c.times) {
			t.Errorf("%s %s %d: %d requests, want %d", c.route, c.method, c.status, n, c.times)
		}
	}
	if n := testutil.CollectAndCount(m.duration); n != len(calls) {
		t.Errorf("%d series, want %d", n, len(calls))
	}
}

// sampleCount returns how many observations the histogram h holds.
func sampleCount(tb testing.TB, h prometheus.Observer) uint64 {
	tb.Helper()
	var out dto.Metric
	if err := h.(prometheus.Metric).Write(&out); err != nil {
		tb.Fatal(err)
	}
	return out.GetHistogram().GetSampleCount()
}

// TestMetricsMethodLabel: methods HTTP does not define, however many and however
// encoded, share one series, _OTHER.
func TestMetricsMethodLabel(t *testing.T) {
	t.Parallel()
	m := newMetrics()
	for i := range 100 {
		m.observe("", "X-"+strconv.Itoa(i), 405, time.Millisecond)
	}
	m.observe("", "\xff\xfe", 405, time.Millisecond)
	m.observe("", "get", 405, time.Millisecond)
	m.observe("", "DELETE", 405, time.Millisecond)
	if got := sampleCount(t, m.duration.WithLabelValues("unmatched", "_OTHER", "405")); got != 102 {
		t.Errorf("_OTHER: %d requests, want 102", got)
	}
	if n := testutil.CollectAndCount(m.duration); n != 2 {
		t.Errorf("%d series, want 2 (_OTHER and DELETE)", n)
	}
}

// TestMetricsObserveAllocates: recording a request of an existing series allocates
// nothing, since it runs on every request.
func TestMetricsObserveAllocates(t *testing.T) {
	m := newMetrics()
	m.observe("GET /v2/catalog/lounges", "GET", 200, time.Millisecond)
	if n := testing.AllocsPerRun(100, func() {
		m.observe("GET /v2/catalog/lounges", "GET", 200, time.Millisecond)
	}); n != 0 {
		t.Errorf("observe allocates %v times a request", n)
	}
}

// TestMetricsRejections: every limit's series exists before its first rejection, and
// each counts its own.
func TestMetricsRejections(t *testing.T) {
	t.Parallel()
	m := newMetrics()
	m.rejected(limitToken)
	m.rejected(limitToken)
	m.rejected(limitWebhookTest)
	m.rejected(limitWebhookRecover)
	m.rejected(limitLongPolls)
	m.rejected(limitInstallPage)
	want := `
# HELP skygate_rate_limit_rejections_total Requests refused with 429 by a rate limit, by limit.
# TYPE skygate_rate_limit_rejections_total counter
skygate_rate_limit_rejections_total{limit="account"} 0
skygate_rate_limit_rejections_total{limit="install_page"} 1
skygate_rate_limit_rejections_total{limit="long_polls"} 1
skygate_rate_limit_rejections_total{limit="token_client"} 2
skygate_rate_limit_rejections_total{limit="token_source"} 0
skygate_rate_limit_rejections_total{limit="webhook_recover"} 1
skygate_rate_limit_rejections_total{limit="webhook_test"} 1
`
	if err := testutil.GatherAndCompare(m.registry, strings.NewReader(want), "skygate_rate_limit_rejections_total"); err != nil {
		t.Error(err)
	}
}

// TestMetricsLint: the series pass the linter promtool check metrics runs, with some
// traffic recorded.
func TestMetricsLint(t *testing.T) {
	t.Parallel()
	m := newMetrics()
	m.observe("GET /healthz", "GET", 200, time.Millisecond)
	m.observe("", "BREW", 405, time.Millisecond)
	m.rejected(limitAccount)
	mfs, err := m.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	problems, err := promlint.NewWithMetricFamilies(mfs).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
}
