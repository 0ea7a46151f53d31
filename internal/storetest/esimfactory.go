package storetest

import (
	"context"
	"crypto/rand"
	"math/big"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// ESIMKeyLifetime is how long the suite's eSIM idempotency records live.
const ESIMKeyLifetime = 72 * time.Hour

// NewICCID returns a random valid 19-digit ICCID in the 8999 range, which no real
// issuer uses.
func NewICCID() string {
	n, err := rand.Int(rand.Reader, big.NewInt(1e14))
	if err != nil {
		panic(err)
	}
	payload := "8999" + leftPad(n.String(), 14)
	return payload + string(skygate.LuhnCheckDigit(payload))
}

func leftPad(s string, n int) string {
	for len(s) < n {
		s = "0" + s
	}
	return s
}

// NewESIMPackage returns a valid active package with a random id: 1024 MB for 7 days
// in Uzbekistan at 500 USD cents, created at T0, not stored; opts change it.
func NewESIMPackage(opts ...func(*skygate.ESIMPackage)) *skygate.ESIMPackage {
	data := 1024
	p := &skygate.ESIMPackage{
		ID: skygate.NewID(),
		Name: skygate.LocalizedText{
			EN: "Uzbekistan 1 GB", RU: "Узбекистан 1 ГБ", UZ: "Oʻzbekiston 1 GB", KK: "Өзбекстан 1 ГБ",
		},
		Countries:    []string{"UZ"},
		DataMB:       &data,
		ValidityDays: 7,
		Price:        skygate.Money{Amount: 500, Currency: "USD"},
		Active:       true,
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

// WithPrice sets the package's price.
func WithPrice(amount int64, currency string) func(*skygate.ESIMPackage) {
	return func(p *skygate.ESIMPackage) { p.Price = skygate.Money{Amount: amount, Currency: currency} }
}

// WithRefundWindow sets the package's refund window in days.
func WithRefundWindow(days int) func(*skygate.ESIMPackage) {
	return func(p *skygate.ESIMPackage) { p.RefundWindowDays = &days }
}

// AsTopUp makes the package a top-up package.
func AsTopUp(p *skygate.ESIMPackage) { p.TopUp = true }

// MustSetESIMPackages upserts the packages of the account at now.
func MustSetESIMPackages(tb testing.TB, s skygate.Store, accountID string, now time.Time, pkgs ...*skygate.ESIMPackage) *skygate.ESIMCatalog {
	tb.Helper()
	cat, err := s.SetESIMPackages(tb.Context(), accountID, pkgs, now, Audit("SetESIMPackages"))
	MustNoError(tb, err, "SetESIMPackages")
	return cat
}

// MustESIMPackage stores NewESIMPackage(opts...) for the account at T0 and returns it.
func MustESIMPackage(tb testing.TB, s skygate.Store, accountID string, opts ...func(*skygate.ESIMPackage)) *skygate.ESIMPackage {
	tb.Helper()
	p := NewESIMPackage(opts...)
	MustSetESIMPackages(tb, s, accountID, T0, p)
	return p
}

// NewPoolProfiles returns n profiles with random ICCIDs, imported at now one
// microsecond apart (so allocation order is the slice order), not stored.
func NewPoolProfiles(n int, now time.Time) []*skygate.PoolProfile {
	out := make([]*skygate.PoolProfile, n)
	for i := range out {
		iccid := NewICCID()
		out[i] = &skygate.PoolProfile{
			ICCID:            iccid,
			SMDPAddress:      "smdp.example.com",
			MatchingIDSealed: []byte("sealed-" + iccid),
			ImportedAt:       now.Add(time.Duration(i) * time.Microsecond),
		}
	}
	return out
}

// MustImportPool imports n new profiles into the account's pool and returns their
// ICCIDs in allocation order.
func MustImportPool(tb testing.TB, s skygate.Store, accountID string, n int) []string {
	tb.Helper()
	profiles := NewPoolProfiles(n, T0)
	MustNoError(tb, s.ImportPoolProfiles(tb.Context(), accountID, profiles, Audit("ImportPoolProfiles")), "ImportPoolProfiles")
	iccids := make([]string, n)
	for i, p := range profiles {
		iccids[i] = p.ICCID
	}
	return iccids
}

// MustCredit adds amount in currency to the account's balance at T0.
func MustCredit(tb testing.TB, s skygate.Store, accountID string, amount int64, currency string) *skygate.LedgerEntry {
	tb.Helper()
	e := &skygate.LedgerEntry{
		ID: skygate.NewID(), AccountID: accountID, Kind: skygate.LedgerCredit,
		Amount: skygate.Money{Amount: amount, Currency: currency}, Reference: "test", CreatedAt: T0,
	}
	MustNoError(tb, s.CreditBalance(tb.Context(), e, Audit("CreditBalance")), "CreditBalance")
	return e
}

// NewESIMOrder returns a live order of quantity eSIMs of pkg by its account, created at
// T0 plus one hour, not stored.
func NewESIMOrder(pkg *skygate.ESIMPackage, quantity int) *skygate.ESIMOrder {
	return &skygate.ESIMOrder{
		ID: skygate.NewID(), AccountID: pkg.AccountID, ClientID: "client-" + NewID(), PackageID: pkg.ID,
		Quantity: quantity, PartnerReference: "ref-" + NewID(), UnitPrice: pkg.Price,
		Total:     skygate.Money{Amount: pkg.Price.Amount * int64(quantity), Currency: pkg.Price.Currency},
		CreatedAt: At(time.Hour), Livemode: true,
	}
}

// NewESIMRecord returns an idempotency record of the account's operation with key,
// for resourceID, created at now and living ESIMKeyLifetime.
func NewESIMRecord(accountID, operation, key, resourceID, fingerprint string, now time.Time) *skygate.IdempotencyRecord {
	return &skygate.IdempotencyRecord{
		AccountID: accountID, Operation: operation, Key: key, Fingerprint: []byte(fingerprint),
		StatusCode: 201, ResourceID: resourceID, Body: []byte(`{"id":"` + resourceID + `"}`),
		CreatedAt: now, ExpiresAt: now.Add(ESIMKeyLifetime),
	}
}

// HoldESIMOrder places o under key in the background and returns once the store has
// allocated its profiles and called its apply, which then waits. release lets apply
// return fail (nil: the order commits) and returns the order's error. An order that
// ends before its apply fails the test.
func HoldESIMOrder(tb testing.TB, s skygate.Store, o *skygate.ESIMOrder, key string, fail error) (release func() error) {
	tb.Helper()
	holding, released := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		rec := NewESIMRecord(o.AccountID, skygate.OperationESIMOrder, key, o.ID, "fp", o.CreatedAt)
		_, err := s.CreateESIMOrder(context.Background(), rec, o, func(*skygate.ESIMOrder) ([]*skygate.Event, error) {
			close(holding)
			<-released
			return nil, fail
		})
		done <- err
	}()
	select {
	case <-holding:
	case err := <-done:
		tb.Fatalf("order %s ended before its apply could hold it: %v", o.ID, err)
	}
	return func() error {
		close(released)
		return <-done
	}
}

// MustAccountEvents returns the account's events in the outbox, oldest first.
func MustAccountEvents(tb testing.TB, s skygate.Store, accountID string) []*skygate.Event {
	tb.Helper()
	all, err := s.EventsAfter(tb.Context(), 0, 0)
	MustNoError(tb, err, "EventsAfter")
	var out []*skygate.Event
	for _, e := range all {
		if e.AccountID == accountID {
			out = append(out, e)
		}
	}
	return out
}
