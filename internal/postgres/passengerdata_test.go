package postgres_test

import (
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate/internal/postgres"
	"github.com/skygate/skygate/internal/postgres/pgtest"
	"github.com/skygate/skygate/internal/seal/sealtest"
	"github.com/skygate/skygate/internal/storetest"
)

// TestPassengerDataAtRest: after a booking's creation and life, no row of the tables
// it wrote holds a passenger's birth date, passport number, e-mail or phone in clear;
// the names are.
func TestPassengerDataAtRest(t *testing.T) {
	t.Parallel()
	s := pgtest.MustOpen(t)
	b := storetest.MustWriteBookingLife(t, s)
	storetest.MustHoldNoneInClear(t, s.DB(), storetest.BookingTables, storetest.PersonalValues(b))
	storetest.MustHoldInClear(t, s.DB(), "bookings", "Karimova")
}

// TestLegacyPassengerData: rows written in clear before migration 00011 lose their
// personal data from events and deliveries in the migration and are sealed by
// SealLegacyData.
func TestLegacyPassengerData(t *testing.T) {
	t.Parallel()
	// 00011 is the migration that seals passenger data.
	storetest.RunLegacyDataTest(t, legacyEngine(t, 10))
}

// TestLegacyDeliveryOrdering: events and deliveries written before migration 00019
// (delivery ordering) stay unordered after it.
func TestLegacyDeliveryOrdering(t *testing.T) {
	t.Parallel()
	storetest.RunLegacyOrderingTest(t, legacyEngine(t, 18))
}

// TestLegacyLivemode: rows written before migration 00018 are live unless a sandbox
// application created them, and so are their events.
func TestLegacyLivemode(t *testing.T) {
	t.Parallel()
	storetest.RunLegacyLivemodeTest(t, legacyEngine(t, 17))
}

// legacyEngine returns a new store migrated up to version, for a legacy-data test.
// The test's own statements (SELECT *) go unprepared, on a pool of their own: the
// migration changes what they return, which a statement prepared before may not.
func legacyEngine(t *testing.T, version int64) storetest.LegacyEngine {
	t.Helper()
	dsn := pgtest.MustDSN(t)
	s, err := postgres.Open(t.Context(), dsn, 0, sealtest.New(t), nil)
	storetest.MustNoError(t, err, "Open")
	t.Cleanup(func() { s.Close() })
	simple := " default_query_exec_mode=simple_protocol"
	if strings.Contains(dsn, "://") {
		simple = "&default_query_exec_mode=simple_protocol" // pgtest.MustDSN set search_path
	}
	db, err := sql.Open("pgx", dsn+simple)
	storetest.MustNoError(t, err, "sql.Open")
	t.Cleanup(func() { db.Close() })
	storetest.MustNoError(t, s.MigrateTo(t.Context(), version), "MigrateTo")
	return storetest.LegacyEngine{
		Store:   s,
		DB:      db,
		Dollar:  true,
		Time:    func(t time.Time) any { return t },
		Migrate: func() error { return s.Migrate(t.Context()) },
	}
}
