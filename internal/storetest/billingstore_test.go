package storetest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// billingStoreTests cover the billing store under load: concurrent replacements of
// the low-balance settings and the statement read in pages.
var billingStoreTests = []test{
	{"SettingsConcurrentReplace", testBillingSettingsConcurrent},
	{"StatementPages", testLedgerBetweenPages},
	{"StatementPagesOtherAccount", testLedgerBetweenOtherAccount},
}

// mustLedgerLine credits accountID with amount EUR at at and returns the line.
func mustLedgerLine(tb testing.TB, s skygate.Store, accountID string, amount int64, at time.Time) *skygate.LedgerEntry {
	tb.Helper()
	e := &skygate.LedgerEntry{ID: skygate.NewID(), AccountID: accountID, Kind: skygate.LedgerCredit,
		Amount: skygate.Money{Amount: amount, Currency: "EUR"}, CreatedAt: at}
	MustNoError(tb, s.CreditBalance(tb.Context(), e, Audit("CreditBalance")), "CreditBalance")
	return e
}

// mustLedgerPages reads the account's lines of [from, to) limit at a time until a
// short page, checking each page's keyset, and returns every line and the pages'
// sizes.
func mustLedgerPages(tb testing.TB, s skygate.Store, accountID string, from, to time.Time, limit int) ([]*skygate.LedgerEntry, []int) {
	tb.Helper()
	var (
		all   []*skygate.LedgerEntry
		sizes []int
		after int64
	)
	for range 100 {
		page, last, err := s.LedgerBetween(tb.Context(), accountID, from, to, after, limit)
		MustNoError(tb, err, "LedgerBetween")
		if len(page) == 0 && last != after {
			tb.Fatalf("an empty page moved the keyset from %d to %d", after, last)
		}
		if len(page) > 0 && last <= after {
			tb.Fatalf("a page of %d lines left the keyset at %d (after %d)", len(page), last, after)
		}
		all, sizes, after = append(all, page...), append(sizes, len(page)), last
		if len(page) < limit {
			return all, sizes
		}
	}
	tb.Fatal("LedgerBetween never ended")
	return nil, nil
}

// testLedgerBetweenPages pages through a month whose lines straddle both of its
// boundaries: every line of the month once, in ledger order, none of the months
// around it, whatever the page size.
func testLedgerBetweenPages(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	march, april := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 4, 1, 0, 0, 0, 0, time.UTC)
	mustLedgerLine(t, s, acc.ID, 1, march.Add(-time.Microsecond))
	var want []*skygate.LedgerEntry
	for i := range 5 {
		want = append(want, mustLedgerLine(t, s, acc.ID, int64(10+i), march.Add(time.Duration(i)*time.Hour)))
	}
	mustLedgerLine(t, s, acc.ID, 2, april)
	// Written after April's line, yet in March: the ledger's order, not the time's.
	want = append(want, mustLedgerLine(t, s, acc.ID, 20, april.Add(-time.Microsecond)))
	for _, tc := range []struct {
		limit int
		sizes []int
	}{{1, []int{1, 1, 1, 1, 1, 1, 0}}, {2, []int{2, 2, 2, 0}}, {4, []int{4, 2}}, {6, []int{6, 0}}, {1000, []int{6}}} {
		got, sizes := mustLedgerPages(t, s, acc.ID, march, april, tc.limit)
		wantEqual(t, fmt.Sprintf("march by %d", tc.limit), got, want)
		wantEqual(t, fmt.Sprintf("pages of %d", tc.limit), sizes, tc.sizes)
	}
	got, _ := mustLedgerPages(t, s, acc.ID, april, april.AddDate(0, 1, 0), 1)
	wantEqual(t, "april's one line", len(got), 1)
}

// testLedgerBetweenOtherAccount interleaves another account's lines with the
// account's, in the same month: no page holds one, and the other account's keyset
// does not reach the account's lines.
func testLedgerBetweenOtherAccount(t *testing.T, s skygate.Store) {
	acc, other := MustCreateAccount(t, s), MustCreateAccount(t, s)
	march := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	var want, theirs []*skygate.LedgerEntry
	for i := range 4 {
		at := march.Add(time.Duration(i) * time.Minute)
		theirs = append(theirs, mustLedgerLine(t, s, other.ID, int64(100+i), at))
		want = append(want, mustLedgerLine(t, s, acc.ID, int64(1+i), at))
	}
	for _, limit := range []int{1, 3, 10} {
		got, _ := mustLedgerPages(t, s, acc.ID, march, march.AddDate(0, 1, 0), limit)
		wantEqual(t, fmt.Sprintf("the account's lines by %d", limit), got, want)
		got, _ = mustLedgerPages(t, s, other.ID, march, march.AddDate(0, 1, 0), limit)
		wantEqual(t, fmt.Sprintf("the other account's lines by %d", limit), got, theirs)
	}
	got, _ := mustLedgerPages(t, s, NewID(), march, march.AddDate(0, 1, 0), 2)
	wantEqual(t, "an unknown account's lines", len(got), 0)
}

// settingsRace is how many replacements of one account's settings race.
const settingsRace = 8

func testBillingSettingsConcurrent(t *testing.T, s skygate.Store) {
	acc, other := MustCreateAccount(t, s), MustCreateAccount(t, s)
	MustSetThresholds(t, s, other.ID, skygate.Money{Amount: 1, Currency: "EUR"})
	// Every call replaces the same currencies, so without turns two would both clear
	// and then both insert EUR.
	lists := make([][]skygate.Money, settingsRace)
	for i := range lists {
		lists[i] = []skygate.Money{{Amount: int64(100 + i), Currency: "EUR"}, {Amount: int64(200 + i), Currency: "USD"}}
	}
	got := make([]*skygate.BillingSettings, settingsRace)
	errs := make([]error, settingsRace)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range settingsRace {
		wg.Go(func() {
			<-start
			got[i], errs[i] = s.SetBillingSettings(t.Context(), acc.ID, &skygate.BillingSettings{LowBalanceThresholds: lists[i]}, T0)
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		MustNoError(t, err, "concurrent SetBillingSettings")
		wantEqual(t, "what the call stored", got[i].LowBalanceThresholds, lists[i])
	}
	final, err := s.BillingSettings(t.Context(), acc.ID)
	MustNoError(t, err, "BillingSettings")
	if !slices.ContainsFunc(lists, func(l []skygate.Money) bool { return slices.Equal(l, final.LowBalanceThresholds) }) {
		t.Fatalf("settings after the race %v are none of the lists written", final.LowBalanceThresholds)
	}
	final, _ = s.BillingSettings(t.Context(), other.ID)
	wantEqual(t, "another account", final.LowBalanceThresholds, []skygate.Money{{Amount: 1, Currency: "EUR"}})
}
