package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// esimSetup is an account with a package, a pool of 10, a balance of 10000 USD cents
// and one order of quantity eSIMs.
type esimSetup struct {
	acc   *skygate.Account
	pkg   *skygate.ESIMPackage
	order *skygate.ESIMOrder
}

func setupESIMs(t *testing.T, s skygate.Store, quantity int) esimSetup {
	t.Helper()
	acc := MustCreateAccount(t, s)
	pkg := MustESIMPackage(t, s, acc.ID)
	MustImportPool(t, s, acc.ID, 10)
	MustCredit(t, s, acc.ID, 10000, "USD")
	return esimSetup{acc: acc, pkg: pkg, order: MustCreateESIMOrder(t, s, pkg, quantity)}
}

func testESIMList(t *testing.T, s skygate.Store) {
	st := setupESIMs(t, s, 2)
	second := NewESIMOrder(st.pkg, 1)
	second.CreatedAt = At(90 * time.Minute)
	_, err := CreateESIMOrder(t, s, second, "second")
	MustNoError(t, err, "CreateESIMOrder")
	MustActivate(t, s, st.acc.ID, second.ESIMs[0].ICCID, At(2*time.Hour))
	tests := []struct {
		name   string
		filter skygate.ESIMFilter
		page   skygate.Page
		want   []string
		total  int
	}{
		{"All", skygate.ESIMFilter{}, skygate.Page{}, append(second.ICCIDs(), st.order.ICCIDs()...), 3},
		{"Page", skygate.ESIMFilter{}, skygate.Page{Limit: 1, Offset: 1}, st.order.ICCIDs()[:1], 3},
		{"Order", skygate.ESIMFilter{OrderID: st.order.ID}, skygate.Page{}, st.order.ICCIDs(), 2},
		{"Status", skygate.ESIMFilter{Status: skygate.ESIMActive}, skygate.Page{}, second.ICCIDs(), 1},
		{"Both", skygate.ESIMFilter{Status: skygate.ESIMActive, OrderID: st.order.ID}, skygate.Page{}, nil, 0},
	}
	for _, tt := range tests {
		list, total, err := s.ListESIMs(t.Context(), st.acc.ID, tt.filter, tt.page)
		MustNoError(t, err, "ListESIMs "+tt.name)
		var got []string
		for _, e := range list {
			got = append(got, e.ICCID)
		}
		wantEqual(t, tt.name, got, tt.want)
		wantEqual(t, tt.name+" total", total, tt.total)
	}
}

func testESIMUpdate(t *testing.T, s skygate.Store) {
	st := setupESIMs(t, s, 1)
	iccid := st.order.ESIMs[0].ICCID
	now := At(3 * time.Hour)
	e, err := s.UpdateESIM(t.Context(), st.acc.ID, iccid, now, installApply(now))
	MustNoError(t, err, "UpdateESIM")
	wantEqual(t, "status", e.Status, skygate.ESIMInstalled)
	wantEqual(t, "read back", MustESIM(t, s, st.acc.ID, iccid), e)
	wantUTC(t, "times", e.UpdatedAt, *e.InstalledAt)

	// The apply's domain error comes back as is and nothing changes.
	_, err = s.UpdateESIM(t.Context(), st.acc.ID, iccid, now, installApply(now))
	WantCode(t, err, skygate.CodeConflict)
	wantEqual(t, "after a refused update", MustESIM(t, s, st.acc.ID, iccid), e)
	_, err = s.UpdateESIM(t.Context(), st.acc.ID, NewICCID(), now, installApply(now))
	WantCode(t, err, skygate.CodeNotFound)

	// Activation, then usage past both thresholds: two threshold events, once each, and
	// a status change to Depleted.
	MustNoError(t, func() error {
		_, err := s.UpdateESIM(t.Context(), st.acc.ID, iccid, now, activateApply(now))
		return err
	}(), "activate")
	for _, used := range []int{100, 820, 900, 2000, 2000} {
		_, err = s.UpdateESIM(t.Context(), st.acc.ID, iccid, now, usageApply(used, now))
		if used == 2000 && err != nil {
			WantCode(t, err, skygate.CodeConflict) // the second report finds it Depleted
			continue
		}
		MustNoError(t, err, "usage")
	}
	e = MustESIM(t, s, st.acc.ID, iccid)
	wantEqual(t, "depleted", []any{e.Status, e.Usage.UsedMB, *e.Usage.RemainingMB, e.NotifiedThresholds},
		[]any{skygate.ESIMDepleted, 1024, 0, []int{80, 100}})
	var types []string
	for _, ev := range MustAccountEvents(t, s, st.acc.ID) {
		types = append(types, ev.Type)
	}
	wantEqual(t, "events", types, []string{
		skygate.EventESIMOrderCompleted,
		skygate.EventESIMProfileChanged, skygate.EventESIMStatusChanged, // Installed
		skygate.EventESIMProfileChanged, skygate.EventESIMStatusChanged, // Enabled, Active
		skygate.EventESIMUsageThreshold, skygate.EventESIMUsageThreshold, skygate.EventESIMStatusChanged,
	})
}

func testESIMUpdateConcurrent(t *testing.T, s skygate.Store) {
	st := setupESIMs(t, s, 1)
	iccid := st.order.ESIMs[0].ICCID
	MustActivate(t, s, st.acc.ID, iccid, At(2*time.Hour))
	const n = 20
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, errs[i] = s.UpdateESIM(t.Context(), st.acc.ID, iccid, At(3*time.Hour),
				func(before, after *skygate.ESIM) ([]*skygate.Event, error) {
					return nil, after.ReportUsage(before.Usage.UsedMB+10, skygate.DefaultUsageThresholds)
				})
		})
	}
	wg.Wait()
	for _, err := range errs {
		MustNoError(t, err, "concurrent UpdateESIM")
	}
	wantEqual(t, "used after concurrent increments", MustESIM(t, s, st.acc.ID, iccid).Usage.UsedMB, 10*n)
}

func testESIMExpire(t *testing.T, s skygate.Store) {
	st := setupESIMs(t, s, 4)
	ids := st.order.ICCIDs()
	MustActivate(t, s, st.acc.ID, ids[0], At(0))            // expires at T0+7d
	MustActivate(t, s, st.acc.ID, ids[1], At(0))            // depleted below, expires at T0+7d
	MustActivate(t, s, st.acc.ID, ids[2], At(24*time.Hour)) // expires a day later
	_, err := s.UpdateESIM(t.Context(), st.acc.ID, ids[1], At(time.Hour), usageApply(5000, At(time.Hour)))
	MustNoError(t, err, "deplete")

	expire := func(now time.Time) skygate.ESIMApply {
		return func(before, after *skygate.ESIM) ([]*skygate.Event, error) {
			if err := after.Expire(now); err != nil {
				return nil, err
			}
			return skygate.ESIMEvents(before, after, now)
		}
	}
	due := At(7 * 24 * time.Hour)
	if n, err := s.ExpireESIMs(t.Context(), due.Add(-time.Microsecond), 0, expire(due)); err != nil || n != 0 {
		t.Fatalf("ExpireESIMs before expiry = %d, %v", n, err)
	}
	// Concurrent workers move each due eSIM once.
	counts := make([]int, 4)
	errs := make([]error, 4)
	var wg sync.WaitGroup
	for i := range counts {
		wg.Go(func() { counts[i], errs[i] = s.ExpireESIMs(t.Context(), due, 0, expire(due)) })
	}
	wg.Wait()
	total := 0
	for i := range counts {
		MustNoError(t, errs[i], "ExpireESIMs")
		total += counts[i]
	}
	wantEqual(t, "expired", total, 2)
	for i, want := range []skygate.ESIMStatus{skygate.ESIMExpired, skygate.ESIMExpired, skygate.ESIMActive, skygate.ESIMAssigned} {
		wantEqual(t, "status of "+ids[i], MustESIM(t, s, st.acc.ID, ids[i]).Status, want)
	}
	// An apply that leaves the eSIM due fails each eSIM instead of looping.
	later := At(9 * 24 * time.Hour)
	_, err = s.ExpireESIMs(t.Context(), later, 0, func(before, after *skygate.ESIM) ([]*skygate.Event, error) { return nil, nil })
	if err == nil {
		t.Fatal("ExpireESIMs with an apply that expires nothing succeeded")
	}
	n, err := s.ExpireESIMs(t.Context(), later, 1, expire(later))
	MustNoError(t, err, "ExpireESIMs with a limit")
	wantEqual(t, "expired with limit", n, 1)
}

// topUpApply is the service's ESIMApply of a top-up with pkg at now.
func topUpApply(pkg *skygate.ESIMPackage, now time.Time) skygate.ESIMApply {
	return func(before, after *skygate.ESIM) ([]*skygate.Event, error) {
		if err := after.ApplyTopUp(pkg, now); err != nil {
			return nil, err
		}
		return skygate.ESIMEvents(before, after, now)
	}
}

func newTopUp(accountID, iccid string, pkg *skygate.ESIMPackage, now time.Time) *skygate.TopUp {
	return &skygate.TopUp{ID: skygate.NewID(), AccountID: accountID, ClientID: "client", ICCID: iccid,
		PackageID: pkg.ID, Price: pkg.Price, CreatedAt: now}
}

func testTopUp(t *testing.T, s skygate.Store) {
	st := setupESIMs(t, s, 1)
	iccid := st.order.ESIMs[0].ICCID
	MustActivate(t, s, st.acc.ID, iccid, At(0))
	_, err := s.UpdateESIM(t.Context(), st.acc.ID, iccid, At(time.Hour), usageApply(1024, At(time.Hour)))
	MustNoError(t, err, "deplete")
	topPkg := MustESIMPackage(t, s, st.acc.ID, WithPrice(300, "USD"), AsTopUp)

	now := At(2 * time.Hour)
	tu := newTopUp(st.acc.ID, iccid, topPkg, now)
	rec := NewESIMRecord(st.acc.ID, skygate.OperationESIMTopUp, "t1", tu.ID, "fp", now)
	replay, err := s.TopUpESIM(t.Context(), rec, tu, topUpApply(topPkg, now))
	MustNoError(t, err, "TopUpESIM")
	if replay != nil {
		t.Fatalf("first top-up replayed %+v", replay)
	}
	wantEqual(t, "top-up data", *tu.DataMB, 1024)
	e := tu.ESIM
	wantEqual(t, "eSIM after top-up", []any{e.Status, *e.Usage.TotalMB, e.Usage.UsedMB, e.ValidityDays, len(e.NotifiedThresholds)},
		[]any{skygate.ESIMActive, 2048, 1024, 14, 0})
	wantEqual(t, "expiry moved", *e.ExpiresAt, Stored(At(14*24*time.Hour)))
	wantEqual(t, "stored eSIM", MustESIM(t, s, st.acc.ID, iccid), e)
	got, err := s.TopUp(t.Context(), st.acc.ID, tu.ID)
	MustNoError(t, err, "TopUp")
	wantEqual(t, "top-up read back", got, tu)
	wantEqual(t, "balance", MustBalances(t, s, st.acc.ID)["USD"], int64(10000-500-300))

	again := newTopUp(st.acc.ID, iccid, topPkg, now)
	replay, err = s.TopUpESIM(t.Context(), NewESIMRecord(st.acc.ID, skygate.OperationESIMTopUp, "t1", again.ID, "fp", now),
		again, topUpApply(topPkg, now))
	MustNoError(t, err, "TopUpESIM replay")
	wantEqual(t, "replay", replay, rec)
	wantEqual(t, "balance after replay", MustBalances(t, s, st.acc.ID)["USD"], int64(10000-500-300))
	_, err = s.TopUp(t.Context(), st.acc.ID, again.ID)
	WantCode(t, err, skygate.CodeNotFound)
}

func testTopUpFailures(t *testing.T, s skygate.Store) {
	st := setupESIMs(t, s, 1)
	other := setupESIMs(t, s, 1)
	iccid := st.order.ESIMs[0].ICCID
	expensive := MustESIMPackage(t, s, st.acc.ID, WithPrice(1_000_000, "USD"), AsTopUp)
	cheap := MustESIMPackage(t, s, st.acc.ID, WithPrice(1, "USD"), AsTopUp)
	before := MustESIM(t, s, st.acc.ID, iccid)
	refuse := func(before, after *skygate.ESIM) ([]*skygate.Event, error) {
		return nil, skygate.Errorf(skygate.CodeConflict, "refused")
	}
	tests := []struct {
		name  string
		tu    *skygate.TopUp
		apply skygate.ESIMApply
		code  string
	}{
		{"InsufficientFunds", newTopUp(st.acc.ID, iccid, expensive, At(time.Hour)), topUpApply(expensive, At(time.Hour)), skygate.CodeInsufficientFunds},
		{"OtherAccountsESIM", newTopUp(st.acc.ID, other.order.ESIMs[0].ICCID, cheap, At(time.Hour)), topUpApply(cheap, At(time.Hour)), skygate.CodeNotFound},
		{"OtherAccountsPackage", newTopUp(st.acc.ID, iccid, other.pkg, At(time.Hour)), topUpApply(other.pkg, At(time.Hour)), skygate.CodeNotFound},
		{"ApplyRefuses", newTopUp(st.acc.ID, iccid, cheap, At(time.Hour)), refuse, skygate.CodeConflict},
	}
	for _, tt := range tests {
		rec := NewESIMRecord(st.acc.ID, skygate.OperationESIMTopUp, "k-"+tt.name, tt.tu.ID, "fp", At(time.Hour))
		_, err := s.TopUpESIM(t.Context(), rec, tt.tu, tt.apply)
		WantCode(t, err, tt.code)
		wantEqual(t, tt.name+": balance", MustBalances(t, s, st.acc.ID)["USD"], int64(9500))
		wantEqual(t, tt.name+": eSIM", MustESIM(t, s, st.acc.ID, iccid), before)
		_, err = s.TopUp(t.Context(), st.acc.ID, tt.tu.ID)
		WantCode(t, err, skygate.CodeNotFound)
	}
}
