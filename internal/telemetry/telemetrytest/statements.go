// Package telemetrytest holds the check both storage engines run on their statement
// hook (telemetry.Statements), so that the engines' tests differ only in how they open
// a store and in the statements their SQL is made of.
package telemetrytest

import (
	"context"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/storetest"
	"github.com/skygate/skygate/internal/telemetry"
)

// Engine is what CheckStatements needs of one storage engine.
type Engine struct {
	// Name is the engine as telemetry.NewStatements names it ("sqlite", "postgres").
	Name string
	// Open opens a migrated store that reports its statements to obs.
	Open func(t *testing.T, obs *telemetry.Statements) skygate.Store
	// BookingWrite is the statement (span name) that creates a booking on this engine.
	BookingWrite string
}

// CheckStatements checks that a store opened with a telemetry.Statements measures
// every statement and transaction end, makes no span outside a trace, and makes the
// statements run within a span its children, named by operation and without the
// statements' arguments.
func CheckStatements(t *testing.T, e Engine) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	obs := telemetry.NewStatements(e.Name, tp)
	s := e.Open(t, obs)
	account := storetest.MustCreateAccount(t, s) // outside any span
	if n := len(exp.GetSpans()); n != 0 {
		t.Fatalf("%d spans of statements outside a trace", n)
	}

	ctx, parent := tp.Tracer("test").Start(context.Background(), "request")
	b := storetest.NewBooking(account.ID)
	if _, err := s.CreateBooking(ctx, storetest.NewRecord(b, "k1", "fp"), b, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Booking(ctx, account.ID, b.ID); err != nil {
		t.Fatal(err)
	}
	parent.End()

	names := map[string]bool{}
	for _, sp := range exp.GetSpans() {
		if sp.Name == "request" {
			continue
		}
		names[sp.Name] = true
		if sp.Parent.SpanID() != parent.SpanContext().SpanID() {
			t.Errorf("span %q is not the request's child", sp.Name)
		}
		for _, a := range sp.Attributes {
			for _, secret := range []string{"Lovelace", "ada@example.com", "1990-12-10", "+998901234567", "k1"} {
				if strings.Contains(a.Value.String(), secret) {
					t.Errorf("span %q: attribute %s carries %q", sp.Name, a.Key, secret)
				}
			}
		}
	}
	for _, want := range []string{e.BookingWrite, "SELECT bookings"} {
		if !names[want] {
			t.Errorf("no span %q among %v", want, names)
		}
	}

	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(obs.Collector())
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]bool{}
	for _, m := range mfs[0].GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		ops[strings.TrimSpace(labels["db_operation_name"]+" "+labels["db_collection_name"])] = true
	}
	for _, want := range []string{"INSERT accounts", e.BookingWrite, "SELECT bookings", "BEGIN", "COMMIT"} {
		if !ops[want] {
			t.Errorf("no duration of %q among %v", want, ops)
		}
	}
}
