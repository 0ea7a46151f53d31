package storetest

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// ledgerTests cover the account's one prepaid ledger as bookings use it: the lines
// of every transition, the reservation's refusal, concurrent creates, low-balance
// events, the billing settings and the statement's window.
var ledgerTests = []test{
	{"BookingLifecycle", testLedgerBookingLifecycle},
	{"ClaimedExpiry", testLedgerClaimedExpiry},
	{"RefundAbovePriceRefused", testLedgerRefundAbovePrice},
	{"InsufficientFundsRollsBack", testLedgerInsufficientFunds},
	{"ConcurrentCreates", testLedgerConcurrentCreates},
	{"LowBalanceOncePerCrossing", testLedgerLowBalance},
	{"LowBalanceOnESIMCharge", testLedgerLowBalanceESIM},
	{"Settings", testBillingSettings},
	{"Between", testLedgerBetween},
}

// Priced gives a booking a price of amount in currency and nothing else of commerce
// (no quote, no slot), so that only the ledger acts on it.
func Priced(amount int64, currency string) func(*skygate.Booking) {
	return func(b *skygate.Booking) { b.Price = &skygate.Money{Amount: amount, Currency: currency} }
}

// RefundOnCancel returns a BookingApply that acts as ApplyLikeService and, on a
// cancellation of a priced booking, sets the refund as the booking service does: the
// whole price before confirm, refund after it.
func RefundOnCancel(refund int64) skygate.BookingApply {
	return func(before, after *skygate.Booking) ([]*skygate.Event, error) {
		if after.Status == skygate.BookingCanceled && before.Price != nil {
			r := skygate.Money{Amount: refund, Currency: before.Price.Currency}
			if before.Status == skygate.BookingPending || before.Status == skygate.BookingIssued {
				r = *before.Price
			}
			after.Refund = &r
		}
		return ApplyLikeService(before, after)
	}
}

// MustCancel cancels b at now with RefundOnCancel(refund).
func MustCancel(tb testing.TB, s skygate.Store, b *skygate.Booking, now time.Time, refund int64) *skygate.Booking {
	tb.Helper()
	got, err := s.TransitionBooking(tb.Context(), b.AccountID, b.ID, skygate.TriggerCancel, now, RefundOnCancel(refund))
	MustNoError(tb, err, "cancel")
	return got
}

// MustBalance returns the account's balance in currency (zero when it has none).
func MustBalance(tb testing.TB, s skygate.Store, accountID, currency string) skygate.Balance {
	tb.Helper()
	list, err := s.ESIMBalances(tb.Context(), accountID)
	MustNoError(tb, err, "ESIMBalances")
	for _, b := range list {
		if b.Currency == currency {
			return b
		}
	}
	return skygate.Balance{Currency: currency}
}

// MustLedger returns the account's whole ledger, oldest first.
func MustLedger(tb testing.TB, s skygate.Store, accountID string) []*skygate.LedgerEntry {
	tb.Helper()
	entries, _, err := s.ListLedger(tb.Context(), accountID, skygate.Page{})
	MustNoError(tb, err, "ListLedger")
	for i, j := 0, len(entries)-1; i < j; i, j = i+1, j-1 {
		entries[i], entries[j] = entries[j], entries[i]
	}
	return entries
}

// WantLedgerInvariant checks the ledger model in currency: the available amount is
// the sum of every line, each line's balance_after is the running sum, and reserved is
// the sum of the prices of the account's live (Pending or Issued) priced bookings.
func WantLedgerInvariant(tb testing.TB, s skygate.Store, accountID, currency string) {
	tb.Helper()
	var sum int64
	for _, e := range MustLedger(tb, s, accountID) {
		if e.Amount.Currency != currency {
			continue
		}
		sum += e.Amount.Amount
		if e.BalanceAfter != sum {
			tb.Fatalf("line %s (%s %d): balance_after %d, running sum %d", e.ID, e.Kind, e.Amount.Amount, e.BalanceAfter, sum)
		}
	}
	bookings, _, err := s.ListBookings(tb.Context(), accountID, "", skygate.Page{})
	MustNoError(tb, err, "ListBookings")
	var reserved int64
	for _, b := range bookings {
		if b.Price != nil && b.Price.Currency == currency &&
			(b.Status == skygate.BookingPending || b.Status == skygate.BookingIssued) {
			reserved += b.Price.Amount
		}
	}
	wantEqual(tb, "balance (amount = Σ lines, reserved = Σ live prices)", MustBalance(tb, s, accountID, currency),
		skygate.Balance{Amount: sum, Currency: currency, Reserved: reserved})
}

// ledgerLine is what a test expects of one line.
type ledgerLine struct {
	Kind    skygate.LedgerKind
	Amount  int64
	After   int64
	Booking string
}

func wantLines(tb testing.TB, s skygate.Store, accountID string, want []ledgerLine) {
	tb.Helper()
	var got []ledgerLine
	for _, e := range MustLedger(tb, s, accountID) {
		l := ledgerLine{Kind: e.Kind, Amount: e.Amount.Amount, After: e.BalanceAfter}
		if e.BookingID != nil {
			l.Booking = *e.BookingID
			if e.Reference != *e.BookingID {
				tb.Fatalf("line %s: reference %q, booking_id %q", e.ID, e.Reference, *e.BookingID)
			}
		}
		got = append(got, l)
	}
	wantEqual(tb, "ledger lines", got, want)
}

func testLedgerBookingLifecycle(t *testing.T, s skygate.Store) {
	acc, other := MustCreateAccount(t, s), MustCreateAccount(t, s)
	MustCredit(t, s, acc.ID, 10000, "EUR")
	MustCredit(t, s, other.ID, 10000, "EUR")

	// Confirmed, then canceled with a partial refund.
	a := MustCreateBooking(t, s, acc.ID, Priced(4500, "EUR"))
	wantEqual(t, "after reservation", MustBalance(t, s, acc.ID, "EUR"), skygate.Balance{Amount: 5500, Currency: "EUR", Reserved: 4500})
	a = MustTransition(t, s, a, At(time.Minute), skygate.TriggerIssue, skygate.TriggerConfirm)
	wantEqual(t, "after confirm", MustBalance(t, s, acc.ID, "EUR"), skygate.Balance{Amount: 5500, Currency: "EUR"})
	a = MustCancel(t, s, a, At(2*time.Minute), 2250)
	WantLedgerInvariant(t, s, acc.ID, "EUR")

	// Expired after issue: released.
	b := MustCreateBooking(t, s, acc.ID, Priced(1000, "EUR"))
	b = MustTransition(t, s, b, At(3*time.Minute), skygate.TriggerIssue)
	WantLedgerInvariant(t, s, acc.ID, "EUR")
	MustTransition(t, s, b, At(4*time.Minute), skygate.TriggerExpire)

	// Canceled while Pending: released, no refund line.
	c := MustCreateBooking(t, s, acc.ID, Priced(500, "EUR"))
	MustCancel(t, s, c, At(5*time.Minute), 0)

	// Completed, then canceled with nothing back; and an unpriced booking moves nothing.
	d := MustCreateBooking(t, s, acc.ID, Priced(300, "EUR"))
	d = MustTransition(t, s, d, At(6*time.Minute), skygate.TriggerIssue, skygate.TriggerConfirm, skygate.TriggerUse)
	MustCancel(t, s, d, At(7*time.Minute), 0)
	plain := MustCreateBooking(t, s, acc.ID)
	MustTransition(t, s, plain, At(8*time.Minute), skygate.TriggerIssue, skygate.TriggerConfirm)

	// A live reservation stays reserved.
	e := MustCreateBooking(t, s, acc.ID, Priced(700, "EUR"))

	wantLines(t, s, acc.ID, []ledgerLine{
		{skygate.LedgerCredit, 10000, 10000, ""},
		{skygate.LedgerReservation, -4500, 5500, a.ID},
		{skygate.LedgerRelease, 4500, 10000, a.ID},
		{skygate.LedgerCharge, -4500, 5500, a.ID},
		{skygate.LedgerRefund, 2250, 7750, a.ID},
		{skygate.LedgerReservation, -1000, 6750, b.ID},
		{skygate.LedgerRelease, 1000, 7750, b.ID},
		{skygate.LedgerReservation, -500, 7250, c.ID},
		{skygate.LedgerRelease, 500, 7750, c.ID},
		{skygate.LedgerReservation, -300, 7450, d.ID},
		{skygate.LedgerRelease, 300, 7750, d.ID},
		{skygate.LedgerCharge, -300, 7450, d.ID},
		{skygate.LedgerReservation, -700, 6750, e.ID},
	})
	wantEqual(t, "final balance", MustBalance(t, s, acc.ID, "EUR"), skygate.Balance{Amount: 6750, Currency: "EUR", Reserved: 700})
	WantLedgerInvariant(t, s, acc.ID, "EUR")
	// Another account's money never moved.
	wantEqual(t, "other account", MustBalance(t, s, other.ID, "EUR"), skygate.Balance{Amount: 10000, Currency: "EUR"})
	wantEqual(t, "other account's lines", len(MustLedger(t, s, other.ID)), 1)
}

// testLedgerClaimedExpiry expires priced bookings of two accounts in the batches of
// ClaimBookings: each releases its price on its own account's balance.
func testLedgerClaimedExpiry(t *testing.T, s skygate.Store) {
	ctx := t.Context()
	accs := []*skygate.Account{MustCreateAccount(t, s), MustCreateAccount(t, s)}
	var ids []string
	for _, acc := range accs {
		MustCredit(t, s, acc.ID, 1000, "EUR")
		for range 2 {
			ids = append(ids, MustCreateBooking(t, s, acc.ID, Priced(300, "EUR")).ID)
		}
		wantEqual(t, "reserved", MustBalance(t, s, acc.ID, "EUR"), skygate.Balance{Amount: 400, Currency: "EUR", Reserved: 600})
	}
	n, err := s.ClaimBookings(ctx, skygate.BookingPending, skygate.TriggerIssue, At(time.Minute), 0, ApplyLikeService)
	MustNoError(t, err, "ClaimBookings issue")
	wantEqual(t, "issued", n, len(ids))
	n, err = s.ClaimBookings(ctx, skygate.BookingIssued, skygate.TriggerExpire, At(time.Minute+ConfirmWindow+time.Microsecond), 0, ApplyLikeService)
	MustNoError(t, err, "ClaimBookings expire")
	wantEqual(t, "expired", n, len(ids))
	for i, acc := range accs {
		wantEqual(t, "released", MustBalance(t, s, acc.ID, "EUR"), skygate.Balance{Amount: 1000, Currency: "EUR"})
		released := releasedIDs(t, s, acc.ID)
		own := ids[2*i : 2*i+2]
		if len(released) != 2 || !slices.Contains(own, released[0]) || !slices.Contains(own, released[1]) || released[0] == released[1] {
			t.Fatalf("account %d: released %v, want each of %v once", i, released, own)
		}
		wantLines(t, s, acc.ID, []ledgerLine{
			{skygate.LedgerCredit, 1000, 1000, ""},
			{skygate.LedgerReservation, -300, 700, own[0]},
			{skygate.LedgerReservation, -300, 400, own[1]},
			{skygate.LedgerRelease, 300, 700, released[0]},
			{skygate.LedgerRelease, 300, 1000, released[1]},
		})
		WantLedgerInvariant(t, s, acc.ID, "EUR")
	}
}

// releasedIDs returns the bookings of the account's release lines in the order they
// were written, which a batch does not promise.
func releasedIDs(tb testing.TB, s skygate.Store, accountID string) []string {
	tb.Helper()
	var ids []string
	for _, e := range MustLedger(tb, s, accountID) {
		if e.Kind == skygate.LedgerRelease && e.BookingID != nil {
			ids = append(ids, *e.BookingID)
		}
	}
	return ids
}

func testLedgerRefundAbovePrice(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	MustCredit(t, s, acc.ID, 1000, "EUR")
	b := MustCreateBooking(t, s, acc.ID, Priced(300, "EUR"))
	b = MustTransition(t, s, b, At(time.Minute), skygate.TriggerIssue, skygate.TriggerConfirm)
	_, err := s.TransitionBooking(t.Context(), acc.ID, b.ID, skygate.TriggerCancel, At(2*time.Minute), RefundOnCancel(301))
	if err == nil {
		t.Fatal("a refund above the price was written")
	}
	wantEqual(t, "still confirmed", MustBooking(t, s, acc.ID, b.ID).Status, skygate.BookingConfirmed)
	WantLedgerInvariant(t, s, acc.ID, "EUR")
	wantEqual(t, "balance", MustBalance(t, s, acc.ID, "EUR"), skygate.Balance{Amount: 700, Currency: "EUR"})
}

func testLedgerInsufficientFunds(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	for _, tc := range []struct {
		name     string
		currency string
	}{{"short", "EUR"}, {"no balance in the currency", "GBP"}} {
		MustCredit(t, s, acc.ID, 1000, "EUR")
		before := MustLedger(t, s, acc.ID)
		b := NewBooking(acc.ID, Priced(4500, tc.currency))
		rec := NewRecord(b, "key-"+tc.name, "fp")
		_, err := s.CreateBooking(t.Context(), rec, b, nil)
		WantCode(t, err, skygate.CodeInsufficientFunds)
		_, err = s.Booking(t.Context(), acc.ID, b.ID)
		WantCode(t, err, skygate.CodeNotFound)
		_, err = s.IdempotencyRecord(t.Context(), acc.ID, skygate.OperationCreateBooking, rec.Key, b.CreatedAt)
		WantCode(t, err, skygate.CodeNotFound)
		wantEqual(t, tc.name+": ledger unchanged", len(MustLedger(t, s, acc.ID)), len(before))
		WantLedgerInvariant(t, s, acc.ID, tc.currency)
	}
	// Exactly the available amount is enough; reserved money is not available.
	MustCreateBooking(t, s, acc.ID, Priced(2000, "EUR"))
	b := NewBooking(acc.ID, Priced(1, "EUR"))
	_, err := s.CreateBooking(t.Context(), NewRecord(b, "key-more", "fp"), b, nil)
	WantCode(t, err, skygate.CodeInsufficientFunds)
	// A free booking needs no funds and writes no line.
	MustCreateBooking(t, s, acc.ID, Priced(0, "EUR"))
	wantEqual(t, "balance", MustBalance(t, s, acc.ID, "EUR"), skygate.Balance{Currency: "EUR", Reserved: 2000})
	WantLedgerInvariant(t, s, acc.ID, "EUR")
}

// ledgerRaceCreates is how many bookings race for a balance that covers half of them.
const ledgerRaceCreates = 16

func testLedgerConcurrentCreates(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	MustCredit(t, s, acc.ID, ledgerRaceCreates/2*1000, "EUR")
	errs := make([]error, ledgerRaceCreates)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range ledgerRaceCreates {
		b := NewBooking(acc.ID, Priced(1000, "EUR"))
		wg.Go(func() {
			<-start
			_, errs[i] = s.CreateBooking(t.Context(), NewRecord(b, fmt.Sprintf("race-%d", i), "fp"), b, nil)
		})
	}
	close(start)
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
			continue
		}
		WantCode(t, err, skygate.CodeInsufficientFunds)
	}
	wantEqual(t, "created", ok, ledgerRaceCreates/2)
	wantEqual(t, "balance", MustBalance(t, s, acc.ID, "EUR"),
		skygate.Balance{Currency: "EUR", Reserved: ledgerRaceCreates / 2 * 1000})
	WantLedgerInvariant(t, s, acc.ID, "EUR")
}

// lowBalanceEvents returns the data of the account's billing.balance.low events.
func lowBalanceEvents(tb testing.TB, s skygate.Store, accountID string) []skygate.BalanceLowData {
	tb.Helper()
	var out []skygate.BalanceLowData
	for _, e := range MustAccountEvents(tb, s, accountID) {
		if e.Type != skygate.EventBillingBalanceLow {
			continue
		}
		var d skygate.BalanceLowData
		MustNoError(tb, json.Unmarshal(e.Data, &d), "decode billing.balance.low")
		wantEqual(tb, "ordering key", e.OrderingKey, skygate.BalanceOrderingKey(d.Currency))
		out = append(out, d)
	}
	return out
}

func MustSetThresholds(tb testing.TB, s skygate.Store, accountID string, thresholds ...skygate.Money) {
	tb.Helper()
	_, err := s.SetBillingSettings(tb.Context(), accountID, &skygate.BillingSettings{LowBalanceThresholds: thresholds}, T0)
	MustNoError(tb, err, "SetBillingSettings")
}

func testLedgerLowBalance(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	MustSetThresholds(t, s, acc.ID, skygate.Money{Amount: 5000, Currency: "EUR"}, skygate.Money{Amount: 1, Currency: "USD"})
	MustCredit(t, s, acc.ID, 10000, "EUR")
	MustCreateBooking(t, s, acc.ID, Priced(4000, "EUR")) // 6000: above
	MustCreateBooking(t, s, acc.ID, Priced(2000, "EUR")) // 4000: crosses
	MustCreateBooking(t, s, acc.ID, Priced(500, "EUR"))  // 3500: already below
	wantEqual(t, "one event for the crossing", lowBalanceEvents(t, s, acc.ID),
		[]skygate.BalanceLowData{{Currency: "EUR", Balance: 4000, Threshold: 5000}})

	// Confirming and releasing never fire; a credit above the threshold re-arms it.
	b := MustCreateBooking(t, s, acc.ID, Priced(100, "EUR"))
	b = MustTransition(t, s, b, At(time.Minute), skygate.TriggerIssue, skygate.TriggerConfirm)
	MustCancel(t, s, b, At(2*time.Minute), 100)
	MustCredit(t, s, acc.ID, 5000, "EUR")                // 8500
	MustCreateBooking(t, s, acc.ID, Priced(4000, "EUR")) // 4500: crosses again
	wantEqual(t, "one event per crossing", lowBalanceEvents(t, s, acc.ID), []skygate.BalanceLowData{
		{Currency: "EUR", Balance: 4000, Threshold: 5000}, {Currency: "EUR", Balance: 4500, Threshold: 5000},
	})
	WantLedgerInvariant(t, s, acc.ID, "EUR")
}

func testLedgerLowBalanceESIM(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	pkg := MustESIMPackage(t, s, acc.ID, WithPrice(700, "USD"))
	MustImportPool(t, s, acc.ID, 3)
	MustCredit(t, s, acc.ID, 2000, "USD")
	MustSetThresholds(t, s, acc.ID, skygate.Money{Amount: 1000, Currency: "USD"})
	for i := range 2 { // 1300, then 600: the second crosses
		o := NewESIMOrder(pkg, 1)
		rec := NewESIMRecord(acc.ID, skygate.OperationESIMOrder, fmt.Sprintf("k%d", i), o.ID, "fp", o.CreatedAt)
		_, err := s.CreateESIMOrder(t.Context(), rec, o, nil)
		MustNoError(t, err, "CreateESIMOrder")
	}
	wantEqual(t, "events", lowBalanceEvents(t, s, acc.ID), []skygate.BalanceLowData{{Currency: "USD", Balance: 600, Threshold: 1000}})
	// A reservation in the same currency shares the balance.
	b := NewBooking(acc.ID, Priced(601, "USD"))
	_, err := s.CreateBooking(t.Context(), NewRecord(b, "k", "fp"), b, nil)
	WantCode(t, err, skygate.CodeInsufficientFunds)
	MustCreateBooking(t, s, acc.ID, Priced(600, "USD"))
	wantEqual(t, "balance", MustBalance(t, s, acc.ID, "USD"), skygate.Balance{Currency: "USD", Reserved: 600})
}

func testBillingSettings(t *testing.T, s skygate.Store) {
	acc, other := MustCreateAccount(t, s), MustCreateAccount(t, s)
	got, err := s.BillingSettings(t.Context(), acc.ID)
	MustNoError(t, err, "BillingSettings")
	wantEqual(t, "never set", got, &skygate.BillingSettings{LowBalanceThresholds: []skygate.Money{}})

	set := &skygate.BillingSettings{LowBalanceThresholds: []skygate.Money{{Amount: 9, Currency: "USD"}, {Amount: 5000, Currency: "EUR"}}}
	got, err = s.SetBillingSettings(t.Context(), acc.ID, set, T0)
	MustNoError(t, err, "SetBillingSettings")
	want := &skygate.BillingSettings{LowBalanceThresholds: []skygate.Money{{Amount: 5000, Currency: "EUR"}, {Amount: 9, Currency: "USD"}}}
	wantEqual(t, "set, by currency", got, want)
	got, err = s.BillingSettings(t.Context(), acc.ID)
	MustNoError(t, err, "BillingSettings")
	wantEqual(t, "read back", got, want)

	// Replacing drops what is not sent; another account is untouched.
	MustSetThresholds(t, s, other.ID, skygate.Money{Amount: 1, Currency: "GBP"})
	MustSetThresholds(t, s, acc.ID, skygate.Money{Amount: 7, Currency: "UZS"})
	got, _ = s.BillingSettings(t.Context(), acc.ID)
	wantEqual(t, "replaced", got.LowBalanceThresholds, []skygate.Money{{Amount: 7, Currency: "UZS"}})
	got, _ = s.BillingSettings(t.Context(), other.ID)
	wantEqual(t, "other account", got.LowBalanceThresholds, []skygate.Money{{Amount: 1, Currency: "GBP"}})

	_, err = s.SetBillingSettings(t.Context(), NewID(), set, T0)
	WantCode(t, err, skygate.CodeNotFound)
}

func testLedgerBetween(t *testing.T, s skygate.Store) {
	acc, other := MustCreateAccount(t, s), MustCreateAccount(t, s)
	credit := func(accountID string, at time.Time) *skygate.LedgerEntry {
		e := &skygate.LedgerEntry{ID: skygate.NewID(), AccountID: accountID, Kind: skygate.LedgerCredit,
			Amount: skygate.Money{Amount: 10, Currency: "EUR"}, CreatedAt: at}
		MustNoError(t, s.CreditBalance(t.Context(), e, Audit("CreditBalance")), "CreditBalance")
		return e
	}
	march := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	credit(acc.ID, march.Add(-time.Microsecond))
	first := credit(acc.ID, march)
	last := credit(acc.ID, march.AddDate(0, 1, 0).Add(-time.Microsecond))
	credit(acc.ID, march.AddDate(0, 1, 0))
	credit(other.ID, march.Add(time.Hour))
	got, _, err := s.LedgerBetween(t.Context(), acc.ID, march, march.AddDate(0, 1, 0), 0, 100)
	MustNoError(t, err, "LedgerBetween")
	wantEqual(t, "march, oldest first", got, []*skygate.LedgerEntry{first, last})
}
