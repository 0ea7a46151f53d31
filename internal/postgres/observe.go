package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/skygate/skygate/internal/telemetry"
)

// queryTracer reports every statement of a connection to a telemetry.Statements: pgx
// calls it as a statement starts and once it ended, its rows read (pgx.QueryTracer).
// It sees the statement's SQL text and never passes on its arguments.
type queryTracer struct{ obs *telemetry.Statements }

// statementKey holds the telemetry.Statement of the statement in progress in the
// context pgx hands from TraceQueryStart to TraceQueryEnd.
type statementKey struct{}

func (t queryTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	ctx, st := t.obs.Operation(data.SQL).Start(ctx)
	return context.WithValue(ctx, statementKey{}, st)
}

func (t queryTracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryEndData) {
	if st, ok := ctx.Value(statementKey{}).(telemetry.Statement); ok {
		st.End(data.Err)
	}
}
