package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// Tracing is the service's tracing, on or off as Setup found the environment. The zero
// value and nil are off.
type Tracing struct {
	provider *sdktrace.TracerProvider
	// Endpoint and Protocol are where and how spans are exported; empty when off.
	Endpoint, Protocol string
}

// Propagator is the propagation format of traces, in and out: W3C Trace Context
// (traceparent, tracestate).
var Propagator propagation.TextMapPropagator = propagation.TraceContext{}

// Setup reads the OpenTelemetry variables of the environment through getenv
// (Variables) and, when they name an OTLP endpoint, starts tracing: a tracer provider
// with a batching span processor, an OTLP exporter, a resource naming the service
// ("skygate" unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES name it otherwise)
// and version, and the sampler the variables choose. Without an endpoint, or with
// OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none, it returns tracing that is off.
// A variable it cannot use is an error naming it. The exporter itself reads the
// variables of its transport (OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, _COMPRESSION,
// _CERTIFICATE and their _TRACES_ forms) from the process environment; connecting is
// lazy, so an unreachable collector does not fail Setup. Call Shutdown once done.
func Setup(ctx context.Context, getenv func(string) string, version string) (*Tracing, error) {
	s, err := readSettings(getenv)
	if err != nil || s.endpoint == "" {
		return &Tracing{}, err
	}
	res, err := s.resource(ctx, version)
	if err != nil {
		return nil, err
	}
	var exp sdktrace.SpanExporter
	switch s.protocol {
	case "grpc":
		exp, err = otlptracegrpc.New(ctx, otlptracegrpc.WithEndpointURL(s.endpoint))
	default:
		exp, err = otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(s.endpoint))
	}
	if err != nil {
		return nil, fmt.Errorf("OTLP trace exporter: %w", err)
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithResource(res),
		sdktrace.WithSampler(s.sampler),
	)
	return &Tracing{provider: tp, Endpoint: s.endpoint, Protocol: s.protocol}, nil
}

// Enabled reports whether tracing is on.
func (t *Tracing) Enabled() bool { return t != nil && t.provider != nil }

// TracerProvider returns the tracer provider, or nil when tracing is off: callers
// create no spans then.
func (t *Tracing) TracerProvider() trace.TracerProvider {
	if !t.Enabled() {
		return nil
	}
	return t.provider
}

// Shutdown exports the spans still queued and stops the exporter; it does nothing
// when tracing is off.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if !t.Enabled() {
		return nil
	}
	if err := t.provider.Shutdown(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("tracing: shutdown: %w", err)
	}
	return nil
}

// Handler returns h with a server span around each request, when tracing is on, and
// h itself when it is off. The span's parent is the request's W3C traceparent, if it
// has a valid one; its name is the method and route pattern of the request ("GET
// /v2/catalog/lounges/{id}"), or the method alone for a request no route matched.
// Its attributes follow the HTTP semantic conventions (the path, never the query);
// h may overwrite them while it serves, as httpapi does for a route whose path is a
// secret (its url.path becomes the route's path, /esim/install/{token}).
// h learns the route by setting the Pattern of the request it is given, as
// http.ServeMux does.
func (t *Tracing) Handler(h http.Handler) http.Handler {
	if !t.Enabled() {
		return h
	}
	route := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		if r.Pattern != "" {
			trace.SpanFromContext(r.Context()).SetAttributes(semconv.HTTPRoute(routePath(r.Pattern)))
		}
	})
	return otelhttp.NewHandler(route, "",
		otelhttp.WithTracerProvider(t.provider),
		otelhttp.WithPropagators(Propagator),
		otelhttp.WithMeterProvider(metricnoop.NewMeterProvider()),
	)
}

// routePath is the path of a ServeMux pattern: "GET /a/{id}" is "/a/{id}".
func routePath(pattern string) string {
	if i := strings.IndexByte(pattern, '/'); i >= 0 {
		return pattern[i:]
	}
	return pattern
}
