package sqlite_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/skygate/skygate/internal/seal/sealtest"
	"github.com/skygate/skygate/internal/sqlite"
	"github.com/skygate/skygate/internal/sqlite/sqlitetest"
	"github.com/skygate/skygate/internal/storetest"
)

// TestPassengerDataAtRest: after a booking's creation and life, no row of the tables
// it wrote holds a passenger's birth date, passport number, e-mail or phone in clear;
// the names are.
func TestPassengerDataAtRest(t *testing.T) {
	t.Parallel()
	s := sqlitetest.MustOpen(t)
	b := storetest.MustWriteBookingLife(t, s)
	storetest.MustHoldNoneInClear(t, s.DB(), storetest.BookingTables, storetest.PersonalValues(b))
	storetest.MustHoldInClear(t, s.DB(), "bookings", "Karimova")
}

// TestLegacyPassengerData: rows written in clear before migration 00010 lose their
// personal data from events and deliveries in the migration and are sealed by
// SealLegacyData.
func TestLegacyPassengerData(t *testing.T) {
	t.Parallel()
	s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "skygate.db"), sealtest.New(t), nil)
	storetest.MustNoError(t, err, "Open")
	t.Cleanup(func() { s.Close() })
	// 00010 is the migration that seals passenger data.
	storetest.MustNoError(t, s.MigrateTo(t.Context(), 9), "MigrateTo")
	storetest.RunLegacyDataTest(t, storetest.LegacyEngine{
		Store:   s,
		DB:      s.DB(),
		Time:    func(t time.Time) any { return t.UnixMicro() },
		Migrate: func() error { return s.Migrate(t.Context()) },
	})
}

// TestLegacyDeliveryOrdering: events and deliveries written before migration 00018
// (delivery ordering) stay unordered after it.
func TestLegacyDeliveryOrdering(t *testing.T) {
	t.Parallel()
	storetest.RunLegacyOrderingTest(t, legacyEngine(t, 17))
}

// TestLegacyLivemode: rows written before migration 00017 are live unless a sandbox
// application created them, and so are their events.
func TestLegacyLivemode(t *testing.T) {
	t.Parallel()
	storetest.RunLegacyLivemodeTest(t, legacyEngine(t, 16))
}

// legacyEngine returns a new store migrated up to version, for a legacy-data test.
func legacyEngine(t *testing.T, version int64) storetest.LegacyEngine {
	t.Helper()
	s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "skygate.db"), sealtest.New(t), nil)
	storetest.MustNoError(t, err, "Open")
	t.Cleanup(func() { s.Close() })
	storetest.MustNoError(t, s.MigrateTo(t.Context(), version), "MigrateTo")
	return storetest.LegacyEngine{
		Store:   s,
		DB:      s.DB(),
		Time:    func(t time.Time) any { return t.UnixMicro() },
		Migrate: func() error { return s.Migrate(t.Context()) },
	}
}
