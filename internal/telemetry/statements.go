package telemetry

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// StatementDurationName is the histogram of the store's statement durations on
// /metrics. Its name, labels and buckets are OpenTelemetry's db.client.operation.duration
// as OpenTelemetry's Prometheus exporter writes it: labelled db_system_name
// ("postgresql", "sqlite"), db_operation_name and db_collection_name (Summarize's verb
// and table; "" is no label).
const StatementDurationName = "db_client_operation_duration_seconds"

// statementBuckets are the bucket boundaries, in seconds, that the semantic
// conventions advise for db.client.operation.duration, so that the histogram
// aggregates with those of other services.
var statementBuckets = []float64{0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10}

// maxOperations bounds the statements whose Operation is kept: the store's statements
// are a fixed set, far smaller.
const maxOperations = 4096

// Statements observes the SQL statements of one store engine: the duration of each
// goes to a Prometheus histogram (Collector), and a statement run within a recording
// span becomes a client span of it, when Statements has a tracer provider. A statement
// outside any trace (background work) is measured but makes no span. It is safe for
// concurrent use.
type Statements struct {
	system  attribute.KeyValue // db.system.name
	latency *prometheus.HistogramVec
	tracer  trace.Tracer // nil: no spans
	ops     sync.Map     // SQL text → *Operation
	nops    atomic.Int64
}

// NewStatements returns the observer of the statements of engine ("postgres" or
// "sqlite"), making spans with tp's tracer; nil tp makes none.
func NewStatements(engine string, tp trace.TracerProvider) *Statements {
	s := &Statements{
		system: semconv.DBSystemNameKey.String(engine),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    StatementDurationName,
			Help:    "Duration of the store's SQL statements, until their rows are read, by database, statement kind and main table.",
			Buckets: statementBuckets,
		}, []string{"db_system_name", "db_operation_name", "db_collection_name"}),
	}
	switch engine {
	case "postgres":
		s.system = semconv.DBSystemNamePostgreSQL
	case "sqlite":
		s.system = semconv.DBSystemNameSQLite
	}
	if tp != nil {
		s.tracer = tp.Tracer("github.com/skygate/skygate/internal/telemetry")
	}
	return s
}

// Collector returns the histogram, to be registered on /metrics.
func (s *Statements) Collector() prometheus.Collector { return s.latency }

// Operation is one statement's text as Statements observes it: its summary, its
// histogram series and its span's attributes, derived once.
type Operation struct {
	s        *Statements
	name     string
	observer prometheus.Observer
	attrs    []attribute.KeyValue
}

// Operation returns the Operation of the statement query (its SQL text, never its
// arguments).
func (s *Statements) Operation(query string) *Operation {
	if o, ok := s.ops.Load(query); ok {
		return o.(*Operation)
	}
	summary, verb, table := Summarize(query)
	o := &Operation{s: s, name: summary, observer: s.latency.WithLabelValues(s.system.Value.AsString(), verb, table)}
	o.attrs = []attribute.KeyValue{s.system, semconv.DBOperationName(verb), semconv.DBQuerySummary(summary),
		semconv.DBQueryText(query)}
	if table != "" {
		o.attrs = append(o.attrs, semconv.DBCollectionName(table))
	}
	if s.nops.Load() < maxOperations {
		if prev, loaded := s.ops.LoadOrStore(query, o); loaded {
			return prev.(*Operation)
		}
		s.nops.Add(1)
	}
	return o
}

// Statement is one run of an Operation, from Start to End.
type Statement struct {
	op    *Operation
	start time.Time
	span  trace.Span // nil: none
}

// Start begins a run of o in ctx and returns the context the statement runs in: with
// its span, when ctx holds a recording span and o's Statements a tracer. Call End when
// the statement and its rows are done.
func (o *Operation) Start(ctx context.Context) (context.Context, Statement) {
	st := Statement{op: o, start: time.Now()}
	if o.s.tracer != nil && trace.SpanFromContext(ctx).IsRecording() {
		ctx, st.span = o.s.tracer.Start(ctx, o.name, trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(o.attrs...), trace.WithTimestamp(st.start))
	}
	return ctx, st
}

// End records the statement's duration and ends its span, marking it failed when err
// is not nil and not sql.ErrNoRows. The span records the error's type only: a
// driver's message may quote a value of the statement.
func (st Statement) End(err error) {
	if st.op == nil {
		return
	}
	end := time.Now()
	st.op.observer.Observe(end.Sub(st.start).Seconds())
	if st.span == nil {
		return
	}
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		st.span.SetAttributes(semconv.ErrorType(err))
		st.span.SetStatus(codes.Error, "")
	}
	st.span.End(trace.WithTimestamp(end))
}
