package httpapi

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
	// routes holds the series of registered routes by pattern (addRoute).
	routes map[string]*routeSeries
}

func newMetrics() *metrics {
	m := &metrics{
		routes:   map[string]*routeSeries{},
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

// routeSeries holds the series of one registered route, made on first use (a route
// never called has none in /metrics): its latency histogram, and its request counters
// for the pattern's own method and the statuses in commonStatuses. A request finds them
// with one lookup of its pattern in a map that does not change after NewServer, where
// the general path hashes the route, method and status in two sync.Maps.
type routeSeries struct {
	method   string
	duration atomic.Pointer[prometheus.Observer]
	byStatus [len(commonStatuses)]atomic.Pointer[prometheus.Counter]
}

// commonStatuses are the statuses routeSeries keeps counters for.
var commonStatuses = [...]int{200, 201, 202, 204, 304, 400, 401, 403, 404, 409, 422, 429}

// addRoute prepares the series of pattern ("METHOD /path"). It must not be called once
// the server serves.
func (m *metrics) addRoute(pattern string) {
	method, _, _ := strings.Cut(pattern, " ")
	m.routes[pattern] = &routeSeries{method: method}
}

// observe counts one request. The series are looked up once and then kept, so the hot
// path does not hash label values per request.
func (m *metrics) observe(route, method string, status int, d time.Duration) {
	rs := m.routes[route]
	if rs == nil {
		m.counter(route, method, status).Inc()
		m.histogram(route).Observe(d.Seconds())
		return
	}
	h := rs.duration.Load()
	if h == nil {
		o := m.histogram(route)
		h = &o
		rs.duration.Store(h)
	}
	(*h).Observe(d.Seconds())
	if i := slices.Index(commonStatuses[:], status); i >= 0 && method == rs.method {
		c := rs.byStatus[i].Load()
		if c == nil {
			cc := m.counter(route, method, status)
			c = &cc
			rs.byStatus[i].Store(c)
		}
		(*c).Inc()
		return
	}
	m.counter(route, method, status).Inc()
}

// counter returns the request counter of route, method and status.
func (m *metrics) counter(route, method string, status int) prometheus.Counter {
	method = methodLabel(method)
	k := seriesKey{route, method, status}
	c, ok := m.counters.Load(k)
	if !ok {
		c, _ = m.counters.LoadOrStore(k, m.requests.WithLabelValues(route, method, strconv.Itoa(status)))
	}
	return c.(prometheus.Counter)
}

// methodLabel is the method label of a request: its method when HTTP defines it, else
// "other". Clients choose the method, and a label value per method they invent would
// grow /metrics and the series caches without bound (net/http's HTTP/2 server even
// passes a :method that is not valid UTF-8, which Prometheus refuses with a panic).
func methodLabel(method string) string {
	if standardMethod(method) {
		return method
	}
	return "other"
}

// standardMethod reports whether HTTP defines method (RFC 9110 §9, RFC 5789).
func standardMethod(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return true
	}
	return false
}

// histogram returns the latency histogram of route.
func (m *metrics) histogram(route string) prometheus.Observer {
	h, ok := m.histograms.Load(route)
	if !ok {
		h, _ = m.histograms.LoadOrStore(route, m.duration.WithLabelValues(route))
	}
	return h.(prometheus.Observer)
}

// Register adds collectors of other components (workers, stores) to /metrics.
func (s *Server) Register(cs ...prometheus.Collector) {
	s.metrics.registry.MustRegister(cs...)
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}
