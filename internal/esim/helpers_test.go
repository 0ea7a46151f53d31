package esim_test

import (
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/esim"
	"github.com/skygate/skygate/internal/postgres/pgtest"
	"github.com/skygate/skygate/internal/seal"
	"github.com/skygate/skygate/internal/sqlite/sqlitetest"
	"github.com/skygate/skygate/internal/storetest"
)

// store is what the tests need of an engine: the service's Store and the rest of
// skygate.Store (accounts, events).
type store interface {
	skygate.Store
}

// engines lists the stores the tests run on: SQLite always, PostgreSQL when
// SKYGATE_TEST_DATABASE_URL is set (else its subtests skip).
var engines = []struct {
	name string
	open func(tb testing.TB) store
}{
	{"SQLite", func(tb testing.TB) store { return sqlitetest.MustOpen(tb) }},
	{"PostgreSQL", func(tb testing.TB) store { return pgtest.MustOpen(tb) }},
}

// forEachEngine runs fn as a parallel subtest per engine.
func forEachEngine(t *testing.T, fn func(t *testing.T, s store)) {
	t.Helper()
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			fn(t, e.open(t))
		})
	}
}

// clock is a settable skygate.Clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// testPublicURL is the public base URL of the services that setup makes.
const testPublicURL = "https://api.example.com"

// bundle is what setup returns: a service over a store with one account that has a
// package (1024 MB, 7 days, 500 USD cents, also a top-up), a pool and a balance.
type bundle struct {
	svc   *esim.Service
	store store
	clock *clock
	box   *seal.Box
	acc   *skygate.Account
	pkg   *skygate.ESIMPackage
	pool  []esim.ProfileInput
}

// setup returns a bundle whose account has pool profiles and credit (minor USD units).
func setup(t testing.TB, s store, pool int, credit int64) *bundle {
	t.Helper()
	box, err := seal.New(seal.NewMasterKey())
	if err != nil {
		t.Fatal(err)
	}
	c := &clock{now: storetest.T0}
	b := &bundle{
		svc: esim.New(esim.Config{Store: s, Sealer: box, Clock: c.Now, PublicURL: testPublicURL,
			InstallKey: box.DeriveKey(seal.PurposeESIMInstallLink)}),
		store: s, clock: c, box: box,
	}
	b.acc = storetest.MustCreateAccount(t, s)
	b.pkg = MustSetPackages(t, b.svc, b.acc.ID, storetest.NewESIMPackage(storetest.AsTopUp))[0]
	if pool > 0 {
		b.pool = NewProfiles(pool)
		MustImport(t, b.svc, b.acc.ID, b.pool)
	}
	if credit > 0 {
		MustCredit(t, b.svc, b.acc.ID, credit)
	}
	return b
}

// NewProfiles returns n valid profiles with random ICCIDs.
func NewProfiles(n int) []esim.ProfileInput {
	out := make([]esim.ProfileInput, n)
	for i := range out {
		iccid := storetest.NewICCID()
		out[i] = esim.ProfileInput{ICCID: iccid, SMDPAddress: "smdp.example.com", MatchingID: "MATCH-" + iccid[10:]}
	}
	return out
}

// MustSetPackages sets the account's packages and returns them as stored, in order.
func MustSetPackages(tb testing.TB, svc *esim.Service, accountID string, pkgs ...*skygate.ESIMPackage) []*skygate.ESIMPackage {
	tb.Helper()
	cat, err := svc.SetPackages(tb.Context(), accountID, pkgs, storetest.Audit("SetPackages"))
	storetest.MustNoError(tb, err, "SetPackages")
	var out []*skygate.ESIMPackage
	for _, p := range pkgs {
		for _, q := range cat.Packages {
			if q.ID == p.ID {
				out = append(out, q)
			}
		}
	}
	return out
}

// MustImport imports the profiles into the account's pool.
func MustImport(tb testing.TB, svc *esim.Service, accountID string, profiles []esim.ProfileInput) {
	tb.Helper()
	_, err := svc.ImportPool(tb.Context(), accountID, profiles, storetest.Audit("ImportPool"))
	storetest.MustNoError(tb, err, "ImportPool")
}

// MustCredit adds USD minor units to the account's balance.
func MustCredit(tb testing.TB, svc *esim.Service, accountID string, amount int64) {
	tb.Helper()
	_, err := svc.AddCredit(tb.Context(), accountID, esim.CreditRequest{Amount: skygate.Money{Amount: amount, Currency: "USD"}}, storetest.Audit("esim.credit"))
	storetest.MustNoError(tb, err, "AddCredit")
}

// MustOrder orders quantity eSIMs of pkg under a random key.
func MustOrder(tb testing.TB, b *bundle, pkg *skygate.ESIMPackage, quantity int) *skygate.ESIMOrder {
	tb.Helper()
	o, _, err := b.svc.Order(tb.Context(), esim.OrderCommand{AccountID: b.acc.ID, ClientID: "client", IdempotencyKey: "key-" + storetest.NewID(), Lang: "en", OrderRequest: esim.OrderRequest{PackageID: pkg.ID, Quantity: quantity}})
	storetest.MustNoError(tb, err, "Order")
	return o
}

// eventTypes returns the types of the account's events, oldest first.
func eventTypes(tb testing.TB, s store, accountID string) []string {
	tb.Helper()
	var out []string
	for _, e := range storetest.MustAccountEvents(tb, s, accountID) {
		out = append(out, e.Type)
	}
	return out
}
