package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// esimRefundTests cover what a cancel may refund: never more than was paid on an
// order or top-up, whoever refunded it before, and only within the refund window
// fixed when the eSIM was sold.
var esimRefundTests = []test{
	{"CancelAfterEarlierRefunds", testESIMCancelAfterRefunds},
	{"CancelRacesAdminRefund", testESIMCancelRacesAdminRefund},
	{"RefundWindowFixedAtSale", testESIMRefundWindowFixedAtSale},
	{"PackageKeepsRefundWindow", testESIMPackageKeepsRefundWindow},
}

// adminRefund credits amount back to the account as an employee's refund of
// reference (CreditBalance, kind refund) at now.
func adminRefund(tb testing.TB, s skygate.Store, accountID string, amount int64, currency, reference string, now time.Time) (*skygate.LedgerEntry, error) {
	e := &skygate.LedgerEntry{
		ID: skygate.NewID(), AccountID: accountID, Kind: skygate.LedgerRefund,
		Amount: skygate.Money{Amount: amount, Currency: currency}, Reference: reference, CreatedAt: now,
	}
	return e, s.CreditBalance(tb.Context(), e, Audit("CreditBalance"))
}

// mustAdminRefund is adminRefund that must succeed.
func mustAdminRefund(tb testing.TB, s skygate.Store, accountID string, amount int64, currency, reference string, now time.Time) {
	tb.Helper()
	_, err := adminRefund(tb, s, accountID, amount, currency, reference, now)
	MustNoError(tb, err, "CreditBalance")
}

// refundedOf sums the account's refund lines of eSIM iccid.
func refundedOf(tb testing.TB, s skygate.Store, accountID, iccid string) int64 {
	tb.Helper()
	var sum int64
	for _, l := range refundLines(tb, s, accountID) {
		if *l.ICCID == iccid {
			sum += l.Amount.Amount
		}
	}
	return sum
}

// testESIMCancelAfterRefunds: a cancel refunds of each payment at most what is left of
// it after the refund lines on its reference, an employee's refunds and the cancels of
// the order's other eSIMs alike, and writes no line nor refunded entry for nothing; the
// eSIM is Canceled either way.
func testESIMCancelAfterRefunds(t *testing.T, s skygate.Store) {
	now := At(3 * time.Hour)
	tests := []struct {
		name     string
		quantity int
		// before tops the eSIM up and refunds as an employee before the cancels.
		before func(t *testing.T, st esimSetup)
		want   []int64 // the refund of each eSIM of the order, canceled in turn
	}{
		{"nothing refunded", 1, nil, []int64{500}},
		{"order refunded in full", 1, func(t *testing.T, st esimSetup) {
			mustAdminRefund(t, s, st.acc.ID, 500, "USD", st.order.ID, At(2*time.Hour))
		}, []int64{0}},
		{"order refunded in part", 1, func(t *testing.T, st esimSetup) {
			mustAdminRefund(t, s, st.acc.ID, 200, "USD", st.order.ID, At(2*time.Hour))
		}, []int64{300}},
		{"refund in another currency", 1, func(t *testing.T, st esimSetup) {
			mustAdminRefund(t, s, st.acc.ID, 500, "EUR", st.order.ID, At(2*time.Hour))
		}, []int64{500}},
		{"order of two refunded in part", 2, func(t *testing.T, st esimSetup) {
			mustAdminRefund(t, s, st.acc.ID, 700, "USD", st.order.ID, At(2*time.Hour))
		}, []int64{300, 0}},
		{"order of two, nothing refunded", 2, nil, []int64{500, 500}},
		{"top-up refunded in full", 1, func(t *testing.T, st esimSetup) {
			top := MustESIMPackage(t, s, st.acc.ID, WithPrice(300, "USD"), AsTopUp)
			tu := mustTopUp(t, s, st.acc.ID, st.order.ESIMs[0].ICCID, top, At(2*time.Hour))
			mustAdminRefund(t, s, st.acc.ID, 300, "USD", tu.ID, At(2*time.Hour))
		}, []int64{500}},
		{"top-up refunded in part", 1, func(t *testing.T, st esimSetup) {
			top := MustESIMPackage(t, s, st.acc.ID, WithPrice(300, "USD"), AsTopUp)
			tu := mustTopUp(t, s, st.acc.ID, st.order.ESIMs[0].ICCID, top, At(2*time.Hour))
			mustAdminRefund(t, s, st.acc.ID, 100, "USD", tu.ID, At(2*time.Hour))
		}, []int64{500 + 200}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := setupESIMs(t, s, tt.quantity)
			if tt.before != nil {
				tt.before(t, st)
			}
			for i, e := range st.order.ESIMs {
				balance := MustBalances(t, s, st.acc.ID)["USD"]
				got, err := s.CancelESIM(t.Context(), st.acc.ID, e.ICCID, now, cancelApply(now))
				MustNoError(t, err, "CancelESIM")
				wantEqual(t, "status", got.Status, skygate.ESIMCanceled)
				wantEqual(t, fmt.Sprintf("refund of eSIM %d", i), refundedOf(t, s, st.acc.ID, e.ICCID), tt.want[i])
				wantEqual(t, "balance", MustBalances(t, s, st.acc.ID)["USD"], balance+tt.want[i])
				refunded := 0
				for _, h := range MustHistory(t, s, st.acc.ID, e.ICCID) {
					if h.Kind == skygate.HistoryRefunded {
						refunded++
						if h.Price.Amount <= 0 {
							t.Errorf("refunded entry of %v", h.Price)
						}
					}
				}
				lines := 0
				for _, l := range refundLines(t, s, st.acc.ID) {
					if *l.ICCID == e.ICCID {
						lines++
					}
				}
				wantEqual(t, "refunded entries = refund lines", refunded, lines)
			}
			wantBalancesAreLedger(t, s, st.acc.ID)
		})
	}
}

// testESIMCancelRacesAdminRefund: an employee's refund of an order racing the cancel
// of its eSIM: whichever writes its line second counts the first one, so the cancel
// refunds the rest of the order when the employee came first and all of it otherwise.
func testESIMCancelRacesAdminRefund(t *testing.T, s skygate.Store) {
	const rounds = 8
	now := At(3 * time.Hour)
	adminFirst := 0
	for i := range rounds {
		st := setupESIMs(t, s, 1)
		iccid := st.order.ESIMs[0].ICCID
		var (
			wg                  sync.WaitGroup
			cancelErr, adminErr error
			admin               *skygate.LedgerEntry
		)
		start := make(chan struct{})
		wg.Go(func() {
			<-start
			_, cancelErr = s.CancelESIM(t.Context(), st.acc.ID, iccid, now, cancelApply(now))
		})
		wg.Go(func() {
			<-start
			// Later each round, so that the two also meet with the cancel ahead.
			time.Sleep(time.Duration(i) * 500 * time.Microsecond)
			admin, adminErr = adminRefund(t, s, st.acc.ID, 200, "USD", st.order.ID, now)
		})
		close(start)
		wg.Wait()
		MustNoError(t, cancelErr, "cancel")
		MustNoError(t, adminErr, "employee's refund")
		want := int64(500)
		for _, l := range MustLedger(t, s, st.acc.ID) {
			if l.ID == admin.ID {
				adminFirst++
				want = 300
				break
			}
			if l.ICCID != nil {
				break
			}
		}
		wantEqual(t, "cancel's refund", refundedOf(t, s, st.acc.ID, iccid), want)
		wantBalancesAreLedger(t, s, st.acc.ID)
	}
	t.Logf("the employee's refund committed first in %d of %d rounds", adminFirst, rounds)
}

// testESIMRefundWindowFixedAtSale: an eSIM keeps the refund window of its sale
// (RefundUntil, the order's time plus the package's window then, nil without one);
// a change of the package's window reaches only later orders.
func testESIMRefundWindowFixedAtSale(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	pkg := MustESIMPackage(t, s, acc.ID, WithRefundWindow(7))
	MustImportPool(t, s, acc.ID, 4)
	MustCredit(t, s, acc.ID, 10000, "USD")
	week := MustCreateESIMOrder(t, s, pkg, 2)
	until := Stored(week.CreatedAt).AddDate(0, 0, 7)
	for _, e := range week.ESIMs {
		wantEqual(t, "order's refund_until", *e.RefundUntil, until)
		wantEqual(t, "stored refund_until", *MustESIM(t, s, acc.ID, e.ICCID).RefundUntil, until)
	}

	pkg.RefundWindowDays = new(0)
	MustSetESIMPackages(t, s, acc.ID, At(2*time.Hour), pkg)
	wantEqual(t, "refund_until after the package changed", *MustESIM(t, s, acc.ID, week.ESIMs[0].ICCID).RefundUntil, until)
	none := MustCreateESIMOrder(t, s, pkg, 1)
	if got := MustESIM(t, s, acc.ID, none.ESIMs[0].ICCID).RefundUntil; got != nil {
		t.Fatalf("refund_until of a sale without refunds: %v", got)
	}

	pkg.RefundWindowDays = new(90)
	MustSetESIMPackages(t, s, acc.ID, At(2*time.Hour), pkg)
	late := until.Add(time.Hour) // after the week sold with, within the package's 90 days
	_, err := s.CancelESIM(t.Context(), acc.ID, week.ESIMs[0].ICCID, late, cancelApply(late))
	WantCode(t, err, skygate.CodeRefundWindowClosed)
	_, err = s.CancelESIM(t.Context(), acc.ID, none.ESIMs[0].ICCID, At(3*time.Hour), cancelApply(At(3*time.Hour)))
	WantCode(t, err, skygate.CodeRefundWindowClosed)
	inTime := until.Add(-time.Microsecond)
	e, err := s.CancelESIM(t.Context(), acc.ID, week.ESIMs[1].ICCID, inTime, cancelApply(inTime))
	MustNoError(t, err, "cancel within the window sold with")
	wantEqual(t, "status", e.Status, skygate.ESIMCanceled)
}

// testESIMPackageKeepsRefundWindow: a package written without a refund window keeps
// its stored one (a new package gets the default), while its APN is replaced as given.
func testESIMPackageKeepsRefundWindow(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	pkg := NewESIMPackage()
	pkg.APN = &skygate.APN{Name: "internet.example"}
	MustSetESIMPackages(t, s, acc.ID, T0, pkg)
	read := func(what string, window int, apn *skygate.APN) {
		t.Helper()
		got, err := s.ESIMPackage(t.Context(), acc.ID, pkg.ID)
		MustNoError(t, err, "ESIMPackage")
		wantEqual(t, what+": refund_window_days", *got.RefundWindowDays, window)
		wantEqual(t, what+": apn", got.APN, apn)
	}
	read("new without a window", skygate.DefaultRefundWindowDays, &skygate.APN{Name: "internet.example"})

	pkg.RefundWindowDays = new(0)
	MustSetESIMPackages(t, s, acc.ID, At(time.Hour), pkg)
	read("set to 0", 0, &skygate.APN{Name: "internet.example"})

	pkg.RefundWindowDays, pkg.APN = nil, nil
	MustSetESIMPackages(t, s, acc.ID, At(2*time.Hour), pkg)
	read("written again without a window", 0, nil)

	pkg.RefundWindowDays = new(45)
	MustSetESIMPackages(t, s, acc.ID, At(3*time.Hour), pkg)
	read("set to 45", 45, nil)
}
