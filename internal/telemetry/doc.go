// Package telemetry owns the service's OpenTelemetry tracing and the latency of its
// SQL statements.
//
// Tracing (Setup) is on when the standard OpenTelemetry environment names an OTLP
// endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), and off
// otherwise: then nothing is wrapped, no exporter runs and no request carries a span.
// When on, spans go through a batching processor to an OTLP exporter (http/protobuf, or
// grpc by OTEL_EXPORTER_OTLP_PROTOCOL), with a resource naming the service and its
// version, and the sampler of OTEL_TRACES_SAMPLER (parent-based by default).
// Variables lists what Setup reads.
//
// Tracing.Handler wraps the API's handler with otelhttp: the W3C traceparent of a
// request becomes the parent of its server span, which is named by the route pattern
// ("GET /v2/catalog/lounges"), never by the raw path. LogHandler adds the trace_id and
// span_id of the span in a record's context to every log line written with one.
//
// Statements observes each SQL statement the store runs (the engines call it from
// their driver hooks): its duration goes to a Prometheus histogram whether tracing is
// on or off, and within a traced request it becomes a client span. Both name the
// statement by its kind and main table ("SELECT bookings", Summarize), never by its
// arguments: no value a statement carries (passengers' personal data among them)
// reaches a label, a span name or an attribute.
package telemetry
