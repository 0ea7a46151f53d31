package telemetry

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// tracer returns a tracer provider that keeps every span in memory.
func tracer(t *testing.T) (*sdktrace.TracerProvider, *tracetest.InMemoryExporter) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return tp, exp
}

// TestStatementsMeasureEveryStatement: the histogram counts every statement by engine
// and summary, with or without tracing and a span.
func TestStatementsMeasureEveryStatement(t *testing.T) {
	t.Parallel()
	tp, _ := tracer(t)
	for _, s := range []*Statements{NewStatements("sqlite", nil), NewStatements("postgres", tp)} {
		system := s.system.Value.AsString()
		for range 3 {
			_, st := s.Operation("SELECT * FROM bookings WHERE id = $1").Start(context.Background())
			st.End(nil)
		}
		_, st := s.Operation("UPDATE bookings SET status = $1").Start(context.Background())
		st.End(errors.New("boom"))
		reg := prometheus.NewPedanticRegistry()
		reg.MustRegister(s.Collector())
		if n := testutil.CollectAndCount(s.Collector(), StatementDurationName); n != 2 {
			t.Errorf("%s: %d series, want 2", system, n)
		}
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		counts := map[string]uint64{}
		for _, m := range mfs[0].GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["db_system_name"] != system {
				t.Errorf("db_system_name %q, want %q", labels["db_system_name"], system)
			}
			counts[labels["db_operation_name"]+" "+labels["db_collection_name"]] = m.GetHistogram().GetSampleCount()
		}
		if counts["SELECT bookings"] != 3 || counts["UPDATE bookings"] != 1 {
			t.Errorf("%s: counts %v", system, counts)
		}
	}
}

// TestStatementsSpans: a statement within a recording span is its child, named by its
// summary, with the database attributes and no argument; outside a span, or without a
// tracer provider, there is no span.
func TestStatementsSpans(t *testing.T) {
	t.Parallel()
	tp, exp := tracer(t)
	s := NewStatements("postgres", tp)
	parentCtx, parent := tp.Tracer("test").Start(context.Background(), "request")
	query := "SELECT * FROM bookings WHERE account_id = $1 AND id = $2"
	ctx, st := s.Operation(query).Start(parentCtx)
	if !trace.SpanFromContext(ctx).IsRecording() || trace.SpanFromContext(ctx) == trace.SpanFromContext(parentCtx) {
		t.Fatal("Start returned no context with a span of the statement")
	}
	st.End(sql.ErrNoRows)
	_, st = s.Operation("UPDATE bookings SET status = $1").Start(parentCtx)
	st.End(errors.New(`invalid input syntax for type uuid: "Ada Lovelace"`))
	_, st = s.Operation(query).Start(context.Background()) // no parent: no span
	st.End(nil)
	_, st = NewStatements("postgres", nil).Operation(query).Start(parentCtx) // no tracer
	st.End(nil)
	parent.End()

	spans := exp.GetSpans()
	if len(spans) != 3 {
		t.Fatalf("%d spans, want 3 (two statements and their parent)", len(spans))
	}
	sel, upd := spans[0], spans[1]
	if sel.Name != "SELECT bookings" || sel.SpanKind != trace.SpanKindClient || sel.Parent.SpanID() != parent.SpanContext().SpanID() {
		t.Errorf("span %q kind %v parent %v", sel.Name, sel.SpanKind, sel.Parent.SpanID())
	}
	want := map[attribute.Key]string{"db.system.name": "postgresql", "db.operation.name": "SELECT",
		"db.collection.name": "bookings", "db.query.summary": "SELECT bookings", "db.query.text": query}
	got := map[attribute.Key]string{}
	for _, a := range sel.Attributes {
		got[a.Key] = a.Value.String()
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("attribute %s = %q, want %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("attributes %v, want %v", got, want)
	}
	if sel.Status.Code != codes.Unset {
		t.Errorf("sql.ErrNoRows made the span's status %v", sel.Status)
	}
	if upd.Status.Code != codes.Error || upd.Status.Description != "" || len(upd.Events) != 0 {
		t.Errorf("failed statement: status %v, events %v", upd.Status, upd.Events)
	}
	for _, a := range upd.Attributes {
		if a.Key == "error.type" && a.Value.String() != "*errors.errorString" {
			t.Errorf("error.type %q", a.Value.String())
		}
	}
}

// TestOperationsAreBounded: the operations kept stop growing at maxOperations, and
// later statements are still measured.
func TestOperationsAreBounded(t *testing.T) {
	t.Parallel()
	s := NewStatements("sqlite", nil)
	s.nops.Store(maxOperations)
	o := s.Operation("SELECT * FROM accounts")
	if o2 := s.Operation("SELECT * FROM accounts"); o2 == o {
		t.Error("an operation past the bound was kept")
	}
	_, st := o.Start(context.Background())
	st.End(nil)
	if n := testutil.CollectAndCount(s.Collector()); n != 1 {
		t.Errorf("%d series, want 1", n)
	}
}
