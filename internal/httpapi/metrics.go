package httpapi

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the Prometheus series of the HTTP layer, on a registry of their own so
// that tests can build many servers in one process.
type metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	// counters (seriesKey → Counter) and histograms (route → Observer) cache series.
	counters   sync.Map
	histograms sync.Map
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "skygate_http_requests_total",
			Help: "HTTP requests by route pattern, method and status code.",
		}, []string{"route", "method", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "skygate_http_request_duration_seconds",
			Help:    "HTTP request latency by route pattern.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10},
		}, []string{"route"}),
	}
	m.registry.MustRegister(m.requests, m.duration,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// seriesKey names one request counter.
type seriesKey struct {
	route, method string
	status        int
}

// observe counts one request. The series are looked up once and then kept, so the hot
// path does not hash label values per request.
func (m *metrics) observe(route, method string, status int, d time.Duration) {
	k := seriesKey{route, method, status}
	c, ok := m.counters.Load(k)
	if !ok {
		c, _ = m.counters.LoadOrStore(k, m.requests.WithLabelValues(route, method, strconv.Itoa(status)))
	}
	c.(prometheus.Counter).Inc()
	h, ok := m.histograms.Load(route)
	if !ok {
		h, _ = m.histograms.LoadOrStore(route, m.duration.WithLabelValues(route))
	}
	h.(prometheus.Observer).Observe(d.Seconds())
}

// Register adds collectors of other components (workers, stores) to /metrics.
func (s *Server) Register(cs ...prometheus.Collector) {
	s.metrics.registry.MustRegister(cs...)
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}
