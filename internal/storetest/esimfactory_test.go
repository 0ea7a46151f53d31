package storetest

import (
	"testing"

	"github.com/skygate/skygate"
)

// WithDataMB sets the package's allowance; nil is unlimited.
func WithDataMB(mb *int) func(*skygate.ESIMPackage) {
	return func(p *skygate.ESIMPackage) { p.DataMB = mb }
}

// orderEvents is the ESIMOrderApply of the service: esim.order.completed.
func orderEvents(o *skygate.ESIMOrder) ([]*skygate.Event, error) {
	return skygate.ESIMOrderEvents(o, o.CreatedAt)
}

// CreateESIMOrder places o under key with the service's events.
func CreateESIMOrder(tb testing.TB, s skygate.Store, o *skygate.ESIMOrder, key string) (*skygate.IdempotencyRecord, error) {
	tb.Helper()
	rec := NewESIMRecord(o.AccountID, skygate.OperationESIMOrder, key, o.ID, "fp", o.CreatedAt)
	return s.CreateESIMOrder(tb.Context(), rec, o, orderEvents)
}

// MustCreateESIMOrder places an order of quantity eSIMs of pkg under a random key and
// returns it with its eSIMs.
func MustCreateESIMOrder(tb testing.TB, s skygate.Store, pkg *skygate.ESIMPackage, quantity int) *skygate.ESIMOrder {
	tb.Helper()
	o := NewESIMOrder(pkg, quantity)
	replay, err := CreateESIMOrder(tb, s, o, "key-"+NewID())
	MustNoError(tb, err, "CreateESIMOrder")
	if replay != nil {
		tb.Fatalf("CreateESIMOrder with a new key replayed %+v", replay)
	}
	return o
}

// MustESIM reads the account's eSIM back.
func MustESIM(tb testing.TB, s skygate.Store, accountID, iccid string) *skygate.ESIM {
	tb.Helper()
	e, err := s.ESIM(tb.Context(), accountID, iccid)
	MustNoError(tb, err, "ESIM")
	return e
}

// MustBalances returns the account's balances by currency.
func MustBalances(tb testing.TB, s skygate.Store, accountID string) map[string]int64 {
	tb.Helper()
	list, err := s.ESIMBalances(tb.Context(), accountID)
	MustNoError(tb, err, "ESIMBalances")
	out := map[string]int64{}
	for _, m := range list {
		out[m.Currency] = m.Amount
	}
	return out
}

// MustPoolCounts returns the account's pool counts as Available, Assigned.
func MustPoolCounts(tb testing.TB, s skygate.Store, accountID string) (available, assigned int) {
	tb.Helper()
	c, err := s.PoolCounts(tb.Context(), accountID)
	MustNoError(tb, err, "PoolCounts")
	return c.ByStatus[skygate.PoolAvailable], c.ByStatus[skygate.PoolAssigned]
}
