package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/seal/sealtest"
	"github.com/skygate/skygate/internal/sqlite"
	"github.com/skygate/skygate/internal/telemetry"
	"github.com/skygate/skygate/internal/telemetry/telemetrytest"
)

// TestStatementsObserved: a store opened with a telemetry.Statements measures every
// statement and transaction end, and makes the statements run within a span its
// children, named by operation and without the statements' arguments.
func TestStatementsObserved(t *testing.T) {
	t.Parallel()
	telemetrytest.CheckStatements(t, telemetrytest.Engine{
		Name: "sqlite",
		Open: func(t *testing.T, obs *telemetry.Statements) skygate.Store {
			s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "skygate.db"), sealtest.New(t), obs)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			if err := s.Migrate(t.Context()); err != nil {
				t.Fatal(err)
			}
			return s
		},
		BookingWrite: "INSERT bookings",
	})
}
