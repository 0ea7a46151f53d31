package webhook

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/skygate/skygate"
)

// Tracing of deliveries. When the dispatcher has a tracer provider, each attempt is a
// client span, "webhook delivery", and its request carries that span's W3C
// traceparent header, which receivers may use to join their own traces. Each attempt
// starts a trace of its own: a delivery is sent later than, and apart from, the API
// request or background work that wrote its event, and that context is not kept with
// the event. The span names the event, the delivery and the attempt
// (skygate.webhook.*) so that an operator can find them in the delivery log; it never
// carries the payload or the receiver's URL beyond its host. The signature does not
// cover traceparent. Without a tracer provider no header is sent.

// traceContext is the propagation format of traceparent.
var traceContext = propagation.TraceContext{}

// startSpan starts the span of the attempt of j, or returns ctx and nil when the
// dispatcher does not trace.
func (d *Dispatcher) startSpan(ctx context.Context, j *skygate.WebhookJob) (context.Context, trace.Span) {
	if d.tracer == nil {
		return ctx, nil
	}
	del := j.Delivery
	attrs := []attribute.KeyValue{
		semconv.HTTPRequestMethodPost,
		attribute.String("skygate.account_id", del.AccountID),
		attribute.String("skygate.webhook.subscription_id", del.SubscriptionID),
		attribute.String("skygate.webhook.delivery_id", del.ID),
		attribute.String("skygate.webhook.event_id", del.EventID),
		attribute.String("skygate.webhook.event_type", del.EventType),
		attribute.Int("skygate.webhook.attempt", del.AttemptCount),
	}
	if u, err := url.Parse(j.Subscription.URL); err == nil {
		attrs = append(attrs, semconv.ServerAddress(u.Hostname()))
		if p, err := strconv.Atoi(u.Port()); err == nil {
			attrs = append(attrs, semconv.ServerPort(p))
		}
	}
	return d.tracer.Start(ctx, "webhook delivery", trace.WithNewRoot(), trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attrs...))
}

// injectTraceparent sets the traceparent header of the span in ctx on h, when there
// is one.
func injectTraceparent(ctx context.Context, h http.Header) {
	traceContext.Inject(ctx, propagation.HeaderCarrier(h))
}

// endSpan ends the span of an attempt with its outcome; a nil span is none.
func endSpan(span trace.Span, o *skygate.WebhookOutcome) {
	if span == nil {
		return
	}
	if code := o.Attempt.StatusCode; code != 0 {
		span.SetAttributes(semconv.HTTPResponseStatusCode(code))
	}
	if o.Status != skygate.WebhookSucceeded {
		// The attempt log's description is partner-safe: no secret, no payload.
		span.SetStatus(codes.Error, o.Attempt.Error)
	}
	span.End()
}
