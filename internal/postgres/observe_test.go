package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/skygate/skygate/internal/postgres"
	"github.com/skygate/skygate/internal/postgres/pgtest"
	"github.com/skygate/skygate/internal/seal/sealtest"
	"github.com/skygate/skygate/internal/storetest"
	"github.com/skygate/skygate/internal/telemetry"
)

// TestStatementsObserved: a store opened with a telemetry.Statements measures every
// statement and transaction end, and makes the statements run within a span its
// children, named by operation and without the statements' arguments.
func TestStatementsObserved(t *testing.T) {
	t.Parallel()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	obs := telemetry.NewStatements("postgres", tp)
	s, err := postgres.Open(t.Context(), pgtest.MustDSN(t), 0, sealtest.New(t), obs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
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
	// PostgreSQL creates a booking in one statement whose first write claims the
	// idempotency key.
	for _, want := range []string{"INSERT idempotency_records", "SELECT bookings"} {
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
	for _, want := range []string{"INSERT accounts", "INSERT idempotency_records", "SELECT bookings", "BEGIN", "COMMIT"} {
		if !ops[want] {
			t.Errorf("no duration of %q among %v", want, ops)
		}
	}
}
