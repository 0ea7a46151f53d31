package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// esimTests cover the ESIMStore: packages, pool, orders, eSIMs, top-ups and billing.
var esimTests = []test{
	{"PackagesUpsert", testESIMPackagesUpsert},
	{"PackagesEmptyCatalog", testESIMPackagesEmpty},
	{"PackagesOtherAccount", testESIMPackagesOtherAccount},
	{"PoolImportAndCounts", testPoolImport},
	{"PoolImportDuplicates", testPoolImportDuplicates},
	{"PoolImportConcurrent", testPoolImportConcurrent},
	{"PoolImportUnknownAccount", testPoolImportUnknownAccount},
	{"OrderCreate", testESIMOrderCreate},
	{"OrderIdempotency", testESIMOrderIdempotency},
	{"OrderFailuresLeaveNothing", testESIMOrderFailures},
	{"OrderOtherAccount", testESIMOrderOtherAccount},
	{"OrderListPages", testESIMOrderListPages},
	{"OrderRaceForPool", testESIMOrderRaceForPool},
	{"OrderRaceForFunds", testESIMOrderRaceForFunds},
	{"OrderRaceForFundsNearPool", testESIMOrderRaceForFundsNearPool},
	{"OrderRaceFree", testESIMOrderRaceFree},
	{"OrderLastProfileAfterRollback", testESIMOrderLastProfileAfterRollback},
	{"OrderDebitFailsLast", testESIMOrderDebitFailsLast},
	{"OrderDeliversItsEvent", testESIMOrderDeliversItsEvent},
	{"ESIMListAndFilter", testESIMList},
	{"ESIMUpdate", testESIMUpdate},
	{"ESIMUpdateConcurrent", testESIMUpdateConcurrent},
	{"ESIMExpire", testESIMExpire},
	{"ESIMExpireSkipsFailure", testExpireSkipsFailure},
	{"TopUp", testTopUp},
	{"TopUpFailures", testTopUpFailures},
	{"Billing", testBilling},
}

func testESIMPackagesUpsert(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	a := NewESIMPackage()
	b := NewESIMPackage(WithDataMB(nil), WithPrice(2500, "EUR"), AsTopUp)
	b.Countries = []string{"KZ", "UZ", "KG"}
	cat := MustSetESIMPackages(t, s, acc.ID, At(0), a, b)
	wantEqual(t, "version", cat.Version, int64(1))
	wantEqual(t, "updated_at", cat.UpdatedAt, Stored(At(0)))
	wantEqual(t, "package count", len(cat.Packages), 2)
	for _, p := range cat.Packages {
		wantUTC(t, "package times", p.CreatedAt, p.UpdatedAt)
	}
	got, err := s.ESIMPackage(t.Context(), acc.ID, b.ID)
	MustNoError(t, err, "ESIMPackage")
	wantEqual(t, "package b", got, b)

	// An update keeps CreatedAt, changes the rest and the version; a new one is added.
	a2 := *a
	a2.Price = skygate.Money{Amount: 750, Currency: "USD"}
	a2.Active = false
	c := NewESIMPackage()
	cat = MustSetESIMPackages(t, s, acc.ID, At(time.Hour), &a2, c)
	wantEqual(t, "version after update", cat.Version, int64(2))
	got, err = s.ESIMPackage(t.Context(), acc.ID, a.ID)
	MustNoError(t, err, "ESIMPackage")
	wantEqual(t, "created_at kept", got.CreatedAt, Stored(At(0)))
	wantEqual(t, "updated_at", got.UpdatedAt, Stored(At(time.Hour)))
	wantEqual(t, "price", got.Price, a2.Price)
	wantEqual(t, "active", got.Active, false)
	var order []string
	for _, p := range cat.Packages {
		order = append(order, p.ID)
	}
	wantEqual(t, "packages in the admin's order, new ones last", order, []string{a.ID, b.ID, c.ID})

	read, err := s.ESIMCatalog(t.Context(), acc.ID)
	MustNoError(t, err, "ESIMCatalog")
	wantEqual(t, "catalog read back", read, cat)
}

func testESIMPackagesEmpty(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	cat, err := s.ESIMCatalog(t.Context(), acc.ID)
	MustNoError(t, err, "ESIMCatalog")
	wantEqual(t, "empty catalog", cat, &skygate.ESIMCatalog{AccountID: acc.ID, Packages: []*skygate.ESIMPackage{}})
	_, err = s.SetESIMPackages(t.Context(), "no-such-account", []*skygate.ESIMPackage{NewESIMPackage()}, T0, Audit("SetESIMPackages"))
	WantCode(t, err, skygate.CodeNotFound)
}

func testESIMPackagesOtherAccount(t *testing.T, s skygate.Store) {
	acc, other := MustCreateAccount(t, s), MustCreateAccount(t, s)
	p := MustESIMPackage(t, s, acc.ID)
	_, err := s.ESIMPackage(t.Context(), other.ID, p.ID)
	WantCode(t, err, skygate.CodeNotFound)

	// The other account cannot take over the id, and nothing of its change is kept.
	stolen := NewESIMPackage(func(q *skygate.ESIMPackage) { q.ID = p.ID })
	fresh := NewESIMPackage()
	_, err = s.SetESIMPackages(t.Context(), other.ID, []*skygate.ESIMPackage{fresh, stolen}, At(time.Hour), Audit("SetESIMPackages"))
	WantCode(t, err, skygate.CodeConflict)
	cat, err := s.ESIMCatalog(t.Context(), other.ID)
	MustNoError(t, err, "ESIMCatalog")
	wantEqual(t, "other account's catalog", len(cat.Packages), 0)
	got, err := s.ESIMPackage(t.Context(), acc.ID, p.ID)
	MustNoError(t, err, "ESIMPackage")
	wantEqual(t, "owner's package", got.UpdatedAt, Stored(T0))
}

func testPoolImport(t *testing.T, s skygate.Store) {
	acc, other := MustCreateAccount(t, s), MustCreateAccount(t, s)
	MustImportPool(t, s, acc.ID, 5)
	MustImportPool(t, s, acc.ID, 2)
	MustImportPool(t, s, other.ID, 1)
	c, err := s.PoolCounts(t.Context(), acc.ID)
	MustNoError(t, err, "PoolCounts")
	wantEqual(t, "counts", c, &skygate.PoolCounts{Total: 7, ByStatus: map[skygate.PoolProfileStatus]int{
		skygate.PoolAvailable: 7, skygate.PoolAssigned: 0,
	}})
	empty, err := s.PoolCounts(t.Context(), MustCreateAccount(t, s).ID)
	MustNoError(t, err, "PoolCounts of an empty pool")
	wantEqual(t, "empty counts", empty.Total, 0)
	wantEqual(t, "empty by status", len(empty.ByStatus), len(skygate.PoolProfileStatuses))
}

func testPoolImportDuplicates(t *testing.T, s skygate.Store) {
	acc, other := MustCreateAccount(t, s), MustCreateAccount(t, s)
	taken := MustImportPool(t, s, other.ID, 1)[0]
	tests := []struct {
		name   string
		mutate func(p []*skygate.PoolProfile)
		fields []string
	}{
		{"RepeatedInUpload", func(p []*skygate.PoolProfile) { p[3].ICCID = p[1].ICCID }, []string{"[3].iccid"}},
		{"InAnotherPool", func(p []*skygate.PoolProfile) { p[2].ICCID = taken }, []string{"[2].iccid"}},
		// Repeats are reported before the pool is consulted.
		{"RepeatOfTaken", func(p []*skygate.PoolProfile) { p[0].ICCID, p[249].ICCID = taken, taken },
			[]string{"[249].iccid"}},
	}
	for _, tt := range tests {
		profiles := NewPoolProfiles(250, T0)
		tt.mutate(profiles)
		err := s.ImportPoolProfiles(t.Context(), acc.ID, profiles, Audit("ImportPoolProfiles"))
		WantCode(t, err, skygate.CodeValidation)
		var fields []string
		for _, f := range err.(*skygate.Error).Fields {
			fields = append(fields, f.Field)
		}
		wantEqual(t, tt.name, fields, tt.fields)
		if avail, _ := MustPoolCounts(t, s, acc.ID); avail != 0 {
			t.Fatalf("%s: %d profiles imported, want none", tt.name, avail)
		}
	}
	// Without the in-upload repeat, a duplicate of another pool in a later batch still
	// rolls back the first batch.
	profiles := NewPoolProfiles(250, T0)
	profiles[240].ICCID = taken
	err := s.ImportPoolProfiles(t.Context(), acc.ID, profiles, Audit("ImportPoolProfiles"))
	WantCode(t, err, skygate.CodeValidation)
	wantEqual(t, "fields", err.(*skygate.Error).Fields, []skygate.FieldError{{Field: "[240].iccid", Message: "is already in a pool"}})
	if avail, _ := MustPoolCounts(t, s, acc.ID); avail != 0 {
		t.Fatalf("%d profiles imported, want none", avail)
	}
}

func testPoolImportConcurrent(t *testing.T, s skygate.Store) {
	accs := []*skygate.Account{MustCreateAccount(t, s), MustCreateAccount(t, s)}
	shared := NewPoolProfiles(10, T0)
	const n = 6
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			profiles := make([]*skygate.PoolProfile, len(shared))
			for j, p := range shared {
				c := *p
				profiles[j] = &c
			}
			errs[i] = s.ImportPoolProfiles(t.Context(), accs[i%2].ID, profiles, Audit("ImportPoolProfiles"))
		})
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
		} else {
			WantCode(t, err, skygate.CodeValidation)
		}
	}
	wantEqual(t, "successful imports", ok, 1)
	a0, _ := MustPoolCounts(t, s, accs[0].ID)
	a1, _ := MustPoolCounts(t, s, accs[1].ID)
	wantEqual(t, "profiles in both pools", a0+a1, len(shared))
}

func testPoolImportUnknownAccount(t *testing.T, s skygate.Store) {
	err := s.ImportPoolProfiles(t.Context(), "no-such-account", NewPoolProfiles(1, T0), Audit("ImportPoolProfiles"))
	WantCode(t, err, skygate.CodeNotFound)
}

func testBilling(t *testing.T, s skygate.Store) {
	acc, other := MustCreateAccount(t, s), MustCreateAccount(t, s)
	MustCredit(t, s, acc.ID, 1000, "USD")
	MustCredit(t, s, acc.ID, 250, "USD")
	refund := &skygate.LedgerEntry{ID: skygate.NewID(), AccountID: acc.ID, Kind: skygate.LedgerRefund,
		Amount: skygate.Money{Amount: 90000, Currency: "UZS"}, Reference: "order-1", Description: "goodwill",
		CreatedAt: At(time.Minute)}
	MustNoError(t, s.CreditBalance(t.Context(), refund, Audit("CreditBalance")), "CreditBalance refund")
	wantEqual(t, "balance after refund", refund.BalanceAfter, int64(90000))
	MustCredit(t, s, other.ID, 5, "USD")

	balances, err := s.ESIMBalances(t.Context(), acc.ID)
	MustNoError(t, err, "ESIMBalances")
	wantEqual(t, "balances", balances, []skygate.Balance{{Amount: 1250, Currency: "USD"}, {Amount: 90000, Currency: "UZS"}})

	entries, total, err := s.ListLedger(t.Context(), acc.ID, skygate.Page{Limit: 2})
	MustNoError(t, err, "ListLedger")
	wantEqual(t, "ledger total", total, 3)
	wantEqual(t, "newest first", entries[0], refund)
	wantEqual(t, "second entry", []any{entries[1].Amount.Amount, entries[1].BalanceAfter}, []any{int64(250), int64(1250)})
	page2, _, err := s.ListLedger(t.Context(), acc.ID, skygate.Page{Limit: 2, Offset: 2})
	MustNoError(t, err, "ListLedger page 2")
	wantEqual(t, "oldest", page2[0].BalanceAfter, int64(1000))

	for _, bad := range []*skygate.LedgerEntry{
		{ID: skygate.NewID(), AccountID: acc.ID, Kind: skygate.LedgerCredit, Amount: skygate.Money{Amount: 0, Currency: "USD"}},
		{ID: skygate.NewID(), AccountID: acc.ID, Kind: skygate.LedgerCharge, Amount: skygate.Money{Amount: 1, Currency: "USD"}},
	} {
		WantCode(t, s.CreditBalance(t.Context(), bad, Audit("CreditBalance")), skygate.CodeValidation)
	}
	WantCode(t, s.CreditBalance(t.Context(), &skygate.LedgerEntry{ID: skygate.NewID(), AccountID: "nobody",
		Kind: skygate.LedgerCredit, Amount: skygate.Money{Amount: 1, Currency: "USD"}}, Audit("CreditBalance")),
		skygate.CodeNotFound)
	_, total, err = s.ListLedger(t.Context(), other.ID, skygate.Page{})
	MustNoError(t, err, "ListLedger of the other account")
	wantEqual(t, "other account's ledger", total, 1)
	wantEqual(t, "other account's balances", MustBalances(t, s, other.ID), map[string]int64{"USD": 5})
}
