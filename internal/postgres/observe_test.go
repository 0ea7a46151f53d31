package postgres_test

import (
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/postgres"
	"github.com/skygate/skygate/internal/postgres/pgtest"
	"github.com/skygate/skygate/internal/seal/sealtest"
	"github.com/skygate/skygate/internal/telemetry"
	"github.com/skygate/skygate/internal/telemetry/telemetrytest"
)

// TestStatementsObserved: a store opened with a telemetry.Statements measures every
// statement and transaction end, and makes the statements run within a span its
// children, named by operation and without the statements' arguments.
func TestStatementsObserved(t *testing.T) {
	t.Parallel()
	telemetrytest.CheckStatements(t, telemetrytest.Engine{
		Name: "postgres",
		Open: func(t *testing.T, obs *telemetry.Statements) skygate.Store {
			s, err := postgres.Open(t.Context(), pgtest.MustDSN(t), 0, sealtest.New(t), obs)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			if err := s.Migrate(t.Context()); err != nil {
				t.Fatal(err)
			}
			return s
		},
		// PostgreSQL creates a booking in one statement whose first write claims the
		// idempotency key.
		BookingWrite: "INSERT idempotency_records",
	})
}
