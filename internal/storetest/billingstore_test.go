package storetest

import (
	"slices"
	"sync"
	"testing"

	"github.com/skygate/skygate"
)

// billingStoreTests cover the billing store under load: concurrent replacements of
// the low-balance settings and the statement read in pages.
var billingStoreTests = []test{
	{"SettingsConcurrentReplace", testBillingSettingsConcurrent},
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
