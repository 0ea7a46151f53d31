package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// esimCancelTests cover the ESIMCancelStore and the ESIMHistoryStore.
var esimCancelTests = []test{
	{"CancelRefundsOrderAndTopUps", testESIMCancelRefunds},
	{"CancelRefused", testESIMCancelRefused},
	{"CancelConcurrent", testESIMCancelConcurrent},
	{"CancelRacesTopUp", testESIMCancelRacesTopUp},
	{"CancelOtherAccount", testESIMCancelOtherAccount},
	{"CancelFreeOrder", testESIMCancelFree},
	{"CanceledProfileNeverSoldAgain", testESIMCanceledProfileNotSold},
	{"HistoryPages", testESIMHistoryPages},
}

// cancelApply is the ESIMApply of a cancel at now: the service's.
func cancelApply(now time.Time) skygate.ESIMApply {
	return func(before, after *skygate.ESIM) ([]*skygate.Event, error) {
		if err := after.Cancel(now); err != nil {
			return nil, err
		}
		return skygate.ESIMEvents(before, after, now)
	}
}

// wantBalancesAreLedger checks that every balance of the account is the sum of its
// ledger lines in that currency, each line's balance_after the running sum.
func wantBalancesAreLedger(tb testing.TB, s skygate.Store, accountID string) {
	tb.Helper()
	sums := map[string]int64{}
	for _, l := range MustLedger(tb, s, accountID) {
		sums[l.Amount.Currency] += l.Amount.Amount
	}
	balances := MustBalances(tb, s, accountID)
	wantEqual(tb, "balances = Σ ledger", balances, sums)
	for currency := range sums {
		WantLedgerInvariant(tb, s, accountID, currency)
	}
}

// refundLines returns the account's refund lines that name an eSIM, oldest first.
func refundLines(tb testing.TB, s skygate.Store, accountID string) []*skygate.LedgerEntry {
	tb.Helper()
	var out []*skygate.LedgerEntry
	for _, l := range MustLedger(tb, s, accountID) {
		if l.ICCID != nil {
			out = append(out, l)
		}
	}
	return out
}

// MustHistory returns the whole history of the account's eSIM.
func MustHistory(tb testing.TB, s skygate.Store, accountID, iccid string) []*skygate.ESIMHistoryEntry {
	tb.Helper()
	h, total, err := s.ESIMHistory(tb.Context(), accountID, iccid, skygate.Page{})
	MustNoError(tb, err, "ESIMHistory")
	wantEqual(tb, "history total", total, len(h))
	return h
}

func historyKinds(h []*skygate.ESIMHistoryEntry) []skygate.ESIMHistoryKind {
	out := make([]skygate.ESIMHistoryKind, len(h))
	for i, e := range h {
		out[i] = e.Kind
	}
	return out
}

// mustTopUp tops the account's eSIM up with pkg at now.
func mustTopUp(tb testing.TB, s skygate.Store, accountID, iccid string, pkg *skygate.ESIMPackage, now time.Time) *skygate.TopUp {
	tb.Helper()
	tu := newTopUp(accountID, iccid, pkg, now)
	_, err := s.TopUpESIM(tb.Context(), NewESIMRecord(accountID, skygate.OperationESIMTopUp, "t-"+tu.ID, tu.ID, "fp", now),
		tu, topUpApply(pkg, now))
	MustNoError(tb, err, "TopUpESIM")
	return tu
}

// testESIMCancelRefunds: a cancel refunds the order's unit price and each paid top-up,
// in its currency, each with a line naming the eSIM and a refunded history entry, and
// writes esim.status.changed; a repeat writes nothing.
func testESIMCancelRefunds(t *testing.T, s skygate.Store) {
	st := setupESIMs(t, s, 2)
	iccid, sibling := st.order.ESIMs[0].ICCID, st.order.ESIMs[1].ICCID
	MustCredit(t, s, st.acc.ID, 1000, "EUR")
	usd := MustESIMPackage(t, s, st.acc.ID, WithPrice(300, "USD"), AsTopUp)
	eur := MustESIMPackage(t, s, st.acc.ID, WithPrice(200, "EUR"), AsTopUp)
	free := MustESIMPackage(t, s, st.acc.ID, WithPrice(0, "USD"), AsTopUp)
	tops := []*skygate.TopUp{
		mustTopUp(t, s, st.acc.ID, iccid, usd, At(2*time.Hour)),
		mustTopUp(t, s, st.acc.ID, iccid, eur, At(2*time.Hour+time.Minute)),
		mustTopUp(t, s, st.acc.ID, iccid, free, At(2*time.Hour+2*time.Minute)),
	}
	wantEqual(t, "balances before", MustBalances(t, s, st.acc.ID), map[string]int64{"USD": 10000 - 1000 - 300, "EUR": 800})
	eventsBefore := len(MustAccountEvents(t, s, st.acc.ID))

	now := At(3 * time.Hour)
	e, err := s.CancelESIM(t.Context(), st.acc.ID, iccid, now, cancelApply(now))
	MustNoError(t, err, "CancelESIM")
	wantEqual(t, "status", e.Status, skygate.ESIMCanceled)
	wantEqual(t, "canceled_at", *e.CanceledAt, Stored(now))
	wantEqual(t, "stored eSIM", MustESIM(t, s, st.acc.ID, iccid), e)
	wantEqual(t, "sibling untouched", MustESIM(t, s, st.acc.ID, sibling).Status, skygate.ESIMAssigned)
	// The order's unit price (one of two eSIMs) and the paid top-ups come back.
	wantEqual(t, "balances after", MustBalances(t, s, st.acc.ID), map[string]int64{"USD": 10000 - 500, "EUR": 1000})
	wantBalancesAreLedger(t, s, st.acc.ID)

	lines := refundLines(t, s, st.acc.ID)
	type line struct {
		Kind      skygate.LedgerKind
		Amount    skygate.Money
		Reference string
		ICCID     string
	}
	var got []line
	for _, l := range lines {
		got = append(got, line{l.Kind, l.Amount, l.Reference, *l.ICCID})
		wantEqual(t, "refund line time", l.CreatedAt, Stored(now))
	}
	// By currency (EUR first), then by time: the order of the balance locks.
	wantEqual(t, "refund lines", got, []line{
		{skygate.LedgerRefund, skygate.Money{Amount: 200, Currency: "EUR"}, tops[1].ID, iccid},
		{skygate.LedgerRefund, skygate.Money{Amount: 500, Currency: "USD"}, st.order.ID, iccid},
		{skygate.LedgerRefund, skygate.Money{Amount: 300, Currency: "USD"}, tops[0].ID, iccid},
	})
	for _, l := range MustLedger(t, s, st.acc.ID) {
		if l.Kind != skygate.LedgerRefund && l.ICCID != nil {
			t.Errorf("%s line %s names eSIM %s", l.Kind, l.ID, *l.ICCID)
		}
	}

	h := MustHistory(t, s, st.acc.ID, iccid)
	wantEqual(t, "history kinds", historyKinds(h), []skygate.ESIMHistoryKind{
		skygate.HistoryOrdered, skygate.HistoryToppedUp, skygate.HistoryToppedUp, skygate.HistoryToppedUp,
		skygate.HistoryStatusChanged, skygate.HistoryRefunded, skygate.HistoryRefunded, skygate.HistoryRefunded,
	})
	wantEqual(t, "ordered", *h[0], skygate.ESIMHistoryEntry{At: Stored(st.order.CreatedAt), Kind: skygate.HistoryOrdered,
		OrderID: st.order.ID, PackageID: st.pkg.ID, Price: &st.pkg.Price})
	wantEqual(t, "status_changed", *h[4], skygate.ESIMHistoryEntry{At: Stored(now), Kind: skygate.HistoryStatusChanged,
		Status: skygate.ESIMCanceled, PreviousStatus: skygate.ESIMAssigned})
	wantEqual(t, "refunded (EUR top-up)", *h[5], skygate.ESIMHistoryEntry{At: Stored(now), Kind: skygate.HistoryRefunded,
		TopUpID: tops[1].ID, Price: &skygate.Money{Amount: 200, Currency: "EUR"}, LedgerEntryID: lines[0].ID})
	wantEqual(t, "refunded (order)", *h[6], skygate.ESIMHistoryEntry{At: Stored(now), Kind: skygate.HistoryRefunded,
		OrderID: st.order.ID, Price: &skygate.Money{Amount: 500, Currency: "USD"}, LedgerEntryID: lines[1].ID})

	events := MustAccountEvents(t, s, st.acc.ID)[eventsBefore:]
	wantEqual(t, "events", len(events), 1)
	wantEqual(t, "event type", events[0].Type, skygate.EventESIMStatusChanged)
	wantEqual(t, "ordering key", events[0].OrderingKey, skygate.ESIMOrderingKey(iccid))

	// A repeat answers the eSIM as it is and writes nothing.
	again, err := s.CancelESIM(t.Context(), st.acc.ID, iccid, now.Add(time.Hour), cancelApply(now.Add(time.Hour)))
	MustNoError(t, err, "CancelESIM again")
	wantEqual(t, "repeat", again, e)
	wantEqual(t, "balances after repeat", MustBalances(t, s, st.acc.ID), map[string]int64{"USD": 9500, "EUR": 1000})
	wantEqual(t, "history after repeat", len(MustHistory(t, s, st.acc.ID, iccid)), len(h))
	wantEqual(t, "events after repeat", len(MustAccountEvents(t, s, st.acc.ID)), eventsBefore+1)

	// A Canceled eSIM takes no top-up; every refused change of a Canceled eSIM is
	// InvalidESIMStatus (it was Conflict before the review of issue 39).
	_, err = s.TopUpESIM(t.Context(), NewESIMRecord(st.acc.ID, skygate.OperationESIMTopUp, "late", "late", "fp", now),
		newTopUp(st.acc.ID, iccid, usd, now), topUpApply(usd, now))
	WantCode(t, err, skygate.CodeInvalidESIMStatus)
	wantBalancesAreLedger(t, s, st.acc.ID)
}

// testESIMCancelRefused: a cancel that apply refuses (an installed eSIM, a closed
// window, a package sold without refunds) changes nothing and moves no money.
func testESIMCancelRefused(t *testing.T, s skygate.Store) {
	st := setupESIMs(t, s, 2)
	installed, fresh := st.order.ESIMs[0].ICCID, st.order.ESIMs[1].ICCID
	_, err := s.UpdateESIM(t.Context(), st.acc.ID, installed, At(2*time.Hour), installApply(At(2*time.Hour)))
	MustNoError(t, err, "install")
	late := st.order.CreatedAt.AddDate(0, 0, 30)
	final := MustCreateESIMOrder(t, s, MustESIMPackage(t, s, st.acc.ID, WithPrice(0, "USD"), WithRefundWindow(0)), 1).ESIMs[0].ICCID
	tests := []struct {
		name, iccid string
		apply       skygate.ESIMApply
		code        string
	}{
		{"Installed", installed, cancelApply(At(3 * time.Hour)), skygate.CodeInvalidESIMStatus},
		{"WindowEnded", fresh, cancelApply(late), skygate.CodeRefundWindowClosed},
		{"NoRefunds", final, cancelApply(At(3 * time.Hour)), skygate.CodeRefundWindowClosed},
	}
	for _, tt := range tests {
		before := MustESIM(t, s, st.acc.ID, tt.iccid)
		history := MustHistory(t, s, st.acc.ID, tt.iccid)
		_, err := s.CancelESIM(t.Context(), st.acc.ID, tt.iccid, At(3*time.Hour), tt.apply)
		WantCode(t, err, tt.code)
		wantEqual(t, tt.name+": eSIM", MustESIM(t, s, st.acc.ID, tt.iccid), before)
		wantEqual(t, tt.name+": history", MustHistory(t, s, st.acc.ID, tt.iccid), history)
		wantEqual(t, tt.name+": balance", MustBalances(t, s, st.acc.ID)["USD"], int64(9000))
		wantEqual(t, tt.name+": refund lines", len(refundLines(t, s, st.acc.ID)), 0)
	}
}

// testESIMCancelConcurrent: concurrent cancels of one eSIM all answer it Canceled and
// refund it once.
func testESIMCancelConcurrent(t *testing.T, s skygate.Store) {
	st := setupESIMs(t, s, 1)
	iccid := st.order.ESIMs[0].ICCID
	const n = 8
	now := At(3 * time.Hour)
	got := make([]*skygate.ESIM, n)
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			got[i], errs[i] = s.CancelESIM(t.Context(), st.acc.ID, iccid, now, cancelApply(now))
		})
	}
	close(start)
	wg.Wait()
	for i := range n {
		MustNoError(t, errs[i], fmt.Sprintf("cancel %d", i))
		wantEqual(t, "status", got[i].Status, skygate.ESIMCanceled)
	}
	wantEqual(t, "balance", MustBalances(t, s, st.acc.ID)["USD"], int64(10000))
	wantEqual(t, "refund lines", len(refundLines(t, s, st.acc.ID)), 1)
	wantBalancesAreLedger(t, s, st.acc.ID)
	wantEqual(t, "history", historyKinds(MustHistory(t, s, st.acc.ID, iccid)), []skygate.ESIMHistoryKind{
		skygate.HistoryOrdered, skygate.HistoryStatusChanged, skygate.HistoryRefunded})
	changed := 0
	for _, e := range MustAccountEvents(t, s, st.acc.ID) {
		if e.Type == skygate.EventESIMStatusChanged {
			changed++
		}
	}
	wantEqual(t, "esim.status.changed", changed, 1)
}

// testESIMCancelRacesTopUp: a cancel racing a top-up of the same eSIM takes turns
// with it: either the top-up commits first and is refunded with the order, or it finds
// the eSIM Canceled and fails. Either way no money is lost or made.
func testESIMCancelRacesTopUp(t *testing.T, s skygate.Store) {
	const rounds = 6
	st := setupESIMs(t, s, rounds)
	top := MustESIMPackage(t, s, st.acc.ID, WithPrice(300, "USD"), AsTopUp)
	now := At(3 * time.Hour)
	toppedFirst := 0
	for i, e := range st.order.ESIMs {
		var (
			wg               sync.WaitGroup
			cancelErr, tuErr error
			canceled         *skygate.ESIM
		)
		tu := newTopUp(st.acc.ID, e.ICCID, top, now)
		start := make(chan struct{})
		wg.Go(func() {
			<-start
			canceled, cancelErr = s.CancelESIM(t.Context(), st.acc.ID, e.ICCID, now, cancelApply(now))
		})
		wg.Go(func() {
			<-start
			_, tuErr = s.TopUpESIM(t.Context(), NewESIMRecord(st.acc.ID, skygate.OperationESIMTopUp, fmt.Sprint("race-", i), tu.ID, "fp", now),
				tu, topUpApply(top, now))
		})
		close(start)
		wg.Wait()
		MustNoError(t, cancelErr, "cancel")
		wantEqual(t, "status", canceled.Status, skygate.ESIMCanceled)
		refunded := 0
		for _, l := range refundLines(t, s, st.acc.ID) {
			if *l.ICCID == e.ICCID {
				refunded += int(l.Amount.Amount)
			}
		}
		if tuErr == nil {
			toppedFirst++
			wantEqual(t, "refund of order and top-up", refunded, 500+300)
		} else {
			WantCode(t, tuErr, skygate.CodeInvalidESIMStatus) // the top-up found it Canceled
			wantEqual(t, "refund of the order", refunded, 500)
			_, err := s.TopUp(t.Context(), st.acc.ID, tu.ID)
			WantCode(t, err, skygate.CodeNotFound)
		}
		// Every eSIM canceled so far gave back all that was paid for it.
		wantEqual(t, "balance", MustBalances(t, s, st.acc.ID)["USD"], int64(10000-500*(rounds-i-1)))
		wantBalancesAreLedger(t, s, st.acc.ID)
	}
	t.Logf("the top-up committed first in %d of %d rounds", toppedFirst, rounds)
}

// testESIMCancelOtherAccount: another account's eSIM is not found for the cancel nor
// for its history, and nothing changes.
func testESIMCancelOtherAccount(t *testing.T, s skygate.Store) {
	st := setupESIMs(t, s, 1)
	other := MustCreateAccount(t, s)
	iccid := st.order.ESIMs[0].ICCID
	before := MustESIM(t, s, st.acc.ID, iccid)
	for _, acc := range []string{other.ID, "no-such-account"} {
		_, err := s.CancelESIM(t.Context(), acc, iccid, At(3*time.Hour), cancelApply(At(3*time.Hour)))
		WantCode(t, err, skygate.CodeNotFound)
		_, _, err = s.ESIMHistory(t.Context(), acc, iccid, skygate.Page{})
		WantCode(t, err, skygate.CodeNotFound)
	}
	_, err := s.CancelESIM(t.Context(), st.acc.ID, NewICCID(), At(3*time.Hour), cancelApply(At(3*time.Hour)))
	WantCode(t, err, skygate.CodeNotFound)
	_, _, err = s.ESIMHistory(t.Context(), st.acc.ID, NewICCID(), skygate.Page{})
	WantCode(t, err, skygate.CodeNotFound)
	wantEqual(t, "eSIM", MustESIM(t, s, st.acc.ID, iccid), before)
	wantEqual(t, "balance", MustBalances(t, s, st.acc.ID)["USD"], int64(9500))
	wantEqual(t, "other's ledger", len(MustLedger(t, s, other.ID)), 0)
}

// testESIMCancelFree: a cancel of an eSIM that cost nothing writes no ledger line and
// no refunded entry.
func testESIMCancelFree(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	pkg := MustESIMPackage(t, s, acc.ID, WithPrice(0, "USD"))
	MustImportPool(t, s, acc.ID, 1)
	o := MustCreateESIMOrder(t, s, pkg, 1)
	iccid := o.ESIMs[0].ICCID
	e, err := s.CancelESIM(t.Context(), acc.ID, iccid, At(3*time.Hour), cancelApply(At(3*time.Hour)))
	MustNoError(t, err, "CancelESIM")
	wantEqual(t, "status", e.Status, skygate.ESIMCanceled)
	wantEqual(t, "ledger", len(MustLedger(t, s, acc.ID)), 0)
	wantEqual(t, "history", historyKinds(MustHistory(t, s, acc.ID, iccid)), []skygate.ESIMHistoryKind{
		skygate.HistoryOrdered, skygate.HistoryStatusChanged})
}

// testESIMCanceledProfileNotSold: a canceled eSIM's profile stays out of the pool: a
// later order gets another profile, and then the pool is exhausted.
func testESIMCanceledProfileNotSold(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	pkg := MustESIMPackage(t, s, acc.ID)
	pool := MustImportPool(t, s, acc.ID, 2)
	MustCredit(t, s, acc.ID, 10000, "USD")
	first := MustCreateESIMOrder(t, s, pkg, 1)
	wantEqual(t, "first profile", first.ESIMs[0].ICCID, pool[0])
	_, err := s.CancelESIM(t.Context(), acc.ID, pool[0], At(3*time.Hour), cancelApply(At(3*time.Hour)))
	MustNoError(t, err, "CancelESIM")
	second := MustCreateESIMOrder(t, s, pkg, 1)
	wantEqual(t, "second profile", second.ESIMs[0].ICCID, pool[1])
	_, err = CreateESIMOrder(t, s, NewESIMOrder(pkg, 1), "third")
	WantCode(t, err, skygate.CodePoolExhausted)
	counts, err := s.PoolCounts(t.Context(), acc.ID)
	MustNoError(t, err, "PoolCounts")
	wantEqual(t, "available", counts.ByStatus[skygate.PoolAvailable], 0)
}

// testESIMHistoryPages: the history pages oldest first with its total.
func testESIMHistoryPages(t *testing.T, s skygate.Store) {
	st := setupESIMs(t, s, 1)
	iccid := st.order.ESIMs[0].ICCID
	MustActivate(t, s, st.acc.ID, iccid, At(2*time.Hour))
	all := MustHistory(t, s, st.acc.ID, iccid)
	wantEqual(t, "kinds", historyKinds(all), []skygate.ESIMHistoryKind{skygate.HistoryOrdered,
		skygate.HistoryProfileChanged, skygate.HistoryStatusChanged, skygate.HistoryProfileChanged, skygate.HistoryStatusChanged})
	for _, tt := range []struct {
		page skygate.Page
		want []*skygate.ESIMHistoryEntry
	}{
		{skygate.Page{Limit: 2}, all[:2]},
		{skygate.Page{Limit: 2, Offset: 4}, all[4:]},
		{skygate.Page{Limit: 2, Offset: 9}, []*skygate.ESIMHistoryEntry{}},
	} {
		got, total, err := s.ESIMHistory(t.Context(), st.acc.ID, iccid, tt.page)
		MustNoError(t, err, "ESIMHistory")
		wantEqual(t, fmt.Sprintf("page %+v", tt.page), got, tt.want)
		wantEqual(t, "total", total, len(all))
	}
}
