package httpapi

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the Prometheus series of the HTTP layer, on a registry of their own so
// that tests can build many servers in one process. Names and labels follow the
// OpenTelemetry semantic conventions for HTTP servers as OpenTelemetry's Prometheus
// exporter writes them (http.server.request.duration → http_server_request_duration_seconds).
type metrics struct {
	registry   *prometheus.Registry
	duration   *prometheus.HistogramVec
	rejections [limiterCount]prometheus.Counter
}

// durationBuckets are the bucket boundaries, in seconds, that the semantic conventions
// advise for http.server.request.duration, so that the histogram aggregates with those
// of other services (sum by le) and fits the dashboards written for the conventions.
var durationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "http_server_request_duration_seconds",
			Help:    "Duration of HTTP server requests, by route, method and status code.",
			Buckets: durationBuckets,
		}, []string{"http_route", "http_request_method", "http_response_status_code"}),
	}
	rejections := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "skygate_rate_limit_rejections_total",
		Help: "Requests refused with 429 by a rate limit, by limit.",
	}, []string{"limit"})
	// Every limit's series exists from the start, so that rate() sees its first
	// rejection.
	for l := range limiterCount {
		m.rejections[l] = rejections.WithLabelValues(l.String())
	}
	m.registry.MustRegister(m.duration, rejections,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// routeUnmatched is the http_route of a request that no route matched (a 404, or a
// 405 of a path whose routes take other methods).
const routeUnmatched = "unmatched"

// observe records one request of pattern (the ServeMux pattern that matched, "" for
// none). It runs on every request and allocates nothing once the series exists.
func (m *metrics) observe(pattern, method string, status int, d time.Duration) {
	m.duration.WithLabelValues(routeLabel(pattern), methodLabel(method), statusLabel(status)).Observe(d.Seconds())
}

// rejected counts a request that limit l refused.
func (m *metrics) rejected(l limiter) { m.rejections[l].Inc() }

// routeLabel is the http_route of a request matched by pattern: the pattern's path
// template without its method (the method has its own label), as the semantic
// conventions and OpenTelemetry's net/http instrumentation have it; routeUnmatched
// for no pattern.
func routeLabel(pattern string) string {
	if i := strings.IndexByte(pattern, '/'); i >= 0 {
		return pattern[i:]
	}
	return routeUnmatched
}

// methodOther is the http_request_method of a method HTTP does not define, as the
// semantic conventions name it.
const methodOther = "_OTHER"

// methodLabel is the http_request_method of a request: its method when HTTP defines
// it (RFC 9110 §9, RFC 5789), else methodOther. Clients choose the method, and a label
// value per method they invent would grow /metrics without bound (net/http's HTTP/2
// server even passes a :method that is not valid UTF-8, which Prometheus refuses with
// a panic).
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return methodOther
}

// statusLabels holds the http_response_status_code of every code from 100 to 599, so
// that a request's label is not formatted anew.
var statusLabels = func() (s [600]string) {
	for code := 100; code < len(s); code++ {
		s[code] = strconv.Itoa(code)
	}
	return s
}()

// statusLabel is the http_response_status_code of status.
func statusLabel(status int) string {
	if status >= 100 && status < len(statusLabels) {
		return statusLabels[status]
	}
	return strconv.Itoa(status)
}

// Register adds collectors of other components (workers, stores) to /metrics.
func (s *Server) Register(cs ...prometheus.Collector) {
	s.metrics.registry.MustRegister(cs...)
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}
