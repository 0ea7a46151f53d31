package telemetry

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// TestHandler: the server span of a request is the child of its traceparent, is named
// by the route pattern the handler learnt, and carries http.route and the status; the
// handler's context holds it.
func TestHandler(t *testing.T) {
	t.Parallel()
	tp, exp := tracer(t)
	tr := &Tracing{provider: tp}
	mux := http.NewServeMux()
	var inner trace.SpanContext
	mux.HandleFunc("GET /items/{id}", func(w http.ResponseWriter, r *http.Request) {
		inner = trace.SpanContextFromContext(r.Context())
		w.WriteHeader(http.StatusTeapot)
	})
	h := tr.Handler(mux)

	req := httptest.NewRequest(http.MethodGet, "/items/4711?name=Ada", nil)
	req.Header.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	h.ServeHTTP(httptest.NewRecorder(), req)
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/nowhere", nil))

	spans := exp.GetSpans()
	if len(spans) != 2 {
		t.Fatalf("%d spans, want 2", len(spans))
	}
	s := spans[0]
	if s.Name != "GET /items/{id}" || s.SpanKind != trace.SpanKindServer {
		t.Errorf("span %q kind %v", s.Name, s.SpanKind)
	}
	if s.Parent.TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" || s.Parent.SpanID().String() != "00f067aa0ba902b7" || !s.Parent.IsRemote() {
		t.Errorf("parent %v", s.Parent)
	}
	if inner.SpanID() != s.SpanContext.SpanID() {
		t.Errorf("the handler's context holds span %v, want %v", inner.SpanID(), s.SpanContext.SpanID())
	}
	attrs := map[attribute.Key]string{}
	for _, a := range s.Attributes {
		attrs[a.Key] = a.Value.String()
	}
	if attrs["http.route"] != "/items/{id}" || attrs["http.response.status_code"] != "418" || attrs["url.path"] != "/items/4711" {
		t.Errorf("attributes %v", attrs)
	}
	for k, v := range attrs {
		if k == "url.query" || k == "url.full" || v == "name=Ada" {
			t.Errorf("the query is recorded: %s=%s", k, v)
		}
	}
	if spans[1].Name != "GET" || spans[1].Parent.IsValid() {
		t.Errorf("unmatched request: span %q, parent %v", spans[1].Name, spans[1].Parent)
	}
}

// TestHandlerOff: with tracing off the handler is the one given.
func TestHandlerOff(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	if got := (&Tracing{}).Handler(mux); got != http.Handler(mux) {
		t.Errorf("Handler wrapped the handler with tracing off: %T", got)
	}
}
