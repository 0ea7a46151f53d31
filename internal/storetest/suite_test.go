package storetest

import (
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/postgres/pgtest"
	"github.com/skygate/skygate/internal/sqlite/sqlitetest"
)

// TestSQLite runs the suite on SQLite stores.
func TestSQLite(t *testing.T) {
	t.Parallel()
	runTests(t, func(t *testing.T) skygate.Store { return sqlitetest.MustOpen(t) })
}

// TestPostgres runs the suite on PostgreSQL stores; each case skips when
// SKYGATE_TEST_DATABASE_URL is unset.
func TestPostgres(t *testing.T) {
	t.Parallel()
	runTests(t, func(t *testing.T) skygate.Store { return pgtest.MustOpen(t) })
}

// runTests runs the conformance suite. newStore must return a fresh, migrated, empty
// store that is closed when its test ends; the subtests run in parallel, each with
// its own store.
func runTests(t *testing.T, newStore func(t *testing.T) skygate.Store) {
	groups := []struct {
		name  string
		tests []test
	}{
		{"Accounts", accountTests},
		{"Applications", applicationTests},
		{"ClientKeys", clientKeyTests},
		{"ApplicationUpdates", applicationUpdateTests},
		{"SigningKeys", keyTests},
		{"Catalog", catalogTests},
		{"Audit", auditTests},
		{"Bookings", bookingTests},
		{"BookingCommerce", bookingCommerceTests},
		{"Quotes", quoteTests},
		{"QuotePurge", quotePurgeTests},
		{"Prices", priceTests},
		{"Capacities", capacityTests},
		{"CapacityReset", capacityResetTests},
		{"Slots", slotTests},
		{"PassengerData", passengerDataTests},
		{"Webhooks", webhookTests},
		{"WebhookOrdering", webhookOrderingTests},
		{"Envelopes", envelopeTests},
		{"EventFeed", eventFeedTests},
		{"ESIM", esimTests},
		{"ESIMCancel", esimCancelTests},
		{"ESIMRefund", esimRefundTests},
		{"ESIMWarnings", esimWarningTests},
		{"Ledger", ledgerTests},
		{"BillingStore", billingStoreTests},
		{"LoginCodes", loginCodeTests},
		{"TokenRevocations", tokenRevocationTests},
		{"Store", storeTests},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			for _, tt := range g.tests {
				t.Run(tt.name, func(t *testing.T) {
					t.Parallel()
					tt.run(t, newStore(t))
				})
			}
		})
	}
}

// test is one case of the suite; it gets its own empty store.
type test struct {
	name string
	run  func(t *testing.T, s skygate.Store)
}

var storeTests = []test{
	{"Ping", func(t *testing.T, s skygate.Store) {
		if err := s.Ping(t.Context()); err != nil {
			t.Fatalf("Ping: %v", err)
		}
	}},
}

// wantUTC fails the test unless every time is in UTC with at most microseconds.
func wantUTC(tb testing.TB, what string, times ...time.Time) {
	tb.Helper()
	for i, t := range times {
		if t.Location() != time.UTC {
			tb.Errorf("%s: time %d is in %v, want UTC", what, i, t.Location())
		}
		if t.Nanosecond()%1000 != 0 {
			tb.Errorf("%s: time %d = %v has sub-microsecond digits", what, i, t)
		}
	}
}
