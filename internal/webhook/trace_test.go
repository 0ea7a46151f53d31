package webhook_test

import (
	"context"
	"net/http"
	"regexp"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/skygate/skygate/internal/webhook"
)

// traceparentPattern is a W3C traceparent of version 00.
var traceparentPattern = regexp.MustCompile(`^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$`)

// TestDeliveryTraceparent: with a tracer provider every attempt is the root span of a
// trace of its own, and its request carries that span's traceparent, which the
// signature does not cover.
func TestDeliveryTraceparent(t *testing.T) {
	t.Parallel()
	b := setup(t, func(w http.ResponseWriter, _ *request, n int) {
		if n == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	b.disp = webhook.NewDispatcher(webhook.DispatcherConfig{Store: b.store, Box: b.box, AllowPrivate: true,
		Clock: b.clock.Now, Rand: func() float64 { return 0.5 }, Tracer: tp})
	d := b.mustTest(t)
	b.mustRunOnce(t, 1)
	b.clock.Advance(webhook.DefaultSchedule[0] * 2)
	b.mustRunOnce(t, 1)

	reqs, spans := b.rc.requests(), exp.GetSpans()
	if len(reqs) != 2 || len(spans) != 2 {
		t.Fatalf("%d requests and %d spans, want 2 of each", len(reqs), len(spans))
	}
	for i, r := range reqs {
		m := traceparentPattern.FindStringSubmatch(r.Header.Get("traceparent"))
		if m == nil {
			t.Fatalf("attempt %d: traceparent %q", i+1, r.Header.Get("traceparent"))
		}
		s := spans[i]
		if m[1] != s.SpanContext.TraceID().String() || m[2] != s.SpanContext.SpanID().String() {
			t.Errorf("attempt %d: traceparent %s names another span than %v", i+1, m[0], s.SpanContext)
		}
		if s.Name != "webhook delivery" || s.SpanKind != trace.SpanKindClient || s.Parent.IsValid() {
			t.Errorf("attempt %d: span %q kind %v parent %v", i+1, s.Name, s.SpanKind, s.Parent)
		}
		attrs := map[attribute.Key]string{}
		for _, a := range s.Attributes {
			attrs[a.Key] = a.Value.String()
		}
		if attrs["skygate.webhook.event_id"] != d.EventID || attrs["skygate.webhook.delivery_id"] != d.ID ||
			attrs["server.address"] != "127.0.0.1" || attrs["http.request.method"] != "POST" {
			t.Errorf("attempt %d: attributes %v", i+1, attrs)
		}
		mustVerify(t, r, secret1)
	}
	if spans[0].SpanContext.TraceID() == spans[1].SpanContext.TraceID() {
		t.Error("both attempts are in one trace")
	}
	if spans[0].Status.Code != codes.Error || spans[1].Status.Code == codes.Error {
		t.Errorf("statuses %v and %v, want an error, then none", spans[0].Status, spans[1].Status)
	}
}

// TestNoTraceparentWithoutTracer: without a tracer provider requests carry no
// traceparent.
func TestNoTraceparentWithoutTracer(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.mustTest(t)
	b.mustRunOnce(t, 1)
	for _, r := range b.rc.requests() {
		if v, ok := r.Header["Traceparent"]; ok {
			t.Errorf("traceparent %q sent without tracing", v)
		}
	}
}
