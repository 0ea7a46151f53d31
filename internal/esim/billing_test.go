package esim_test

import (
	"slices"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/storetest"
)

// TestBillingSettings checks the service's checks of the low-balance thresholds: the
// list is required (empty removes them), bounded, and each threshold valid.
func TestBillingSettings(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, s store) {
		b := setup(t, s, 0, 0)
		many := make([]skygate.Money, skygate.MaxLowBalanceThresholds+1)
		tests := []struct {
			name       string
			thresholds []skygate.Money
			wantField  string
		}{
			{"missing list", nil, "low_balance_thresholds"},
			{"too many", many, "low_balance_thresholds"},
			{"bad currency", []skygate.Money{{Amount: 1, Currency: "usd"}}, "low_balance_thresholds[0].currency"},
			{"negative", []skygate.Money{{Amount: -1, Currency: "USD"}}, "low_balance_thresholds[0].amount"},
			{"twice", []skygate.Money{{Amount: 1, Currency: "USD"}, {Amount: 2, Currency: "USD"}}, "low_balance_thresholds[1].currency"},
		}
		for _, tt := range tests {
			_, err := b.svc.SetBillingSettings(t.Context(), b.acc.ID, &skygate.BillingSettings{LowBalanceThresholds: tt.thresholds})
			storetest.WantCode(t, err, skygate.CodeValidation)
			if e, _ := err.(*skygate.Error); e == nil || len(e.Fields) == 0 || e.Fields[0].Field != tt.wantField {
				t.Errorf("%s: %v, want a problem of %s", tt.name, err, tt.wantField)
			}
		}
		set, err := b.svc.SetBillingSettings(t.Context(), b.acc.ID, &skygate.BillingSettings{LowBalanceThresholds: []skygate.Money{{Amount: 100, Currency: "USD"}}})
		storetest.MustNoError(t, err, "SetBillingSettings")
		got, err := b.svc.BillingSettings(t.Context(), b.acc.ID)
		storetest.MustNoError(t, err, "BillingSettings")
		if len(got.LowBalanceThresholds) != 1 || got.LowBalanceThresholds[0] != set.LowBalanceThresholds[0] {
			t.Fatalf("read back %+v, set %+v", got, set)
		}
		set, err = b.svc.SetBillingSettings(t.Context(), b.acc.ID, &skygate.BillingSettings{LowBalanceThresholds: []skygate.Money{}})
		storetest.MustNoError(t, err, "SetBillingSettings empty")
		if len(set.LowBalanceThresholds) != 0 {
			t.Fatalf("an empty list kept %+v", set)
		}
	})
}

// TestStatement checks the statement's month: YYYY-MM only, a UTC month, oldest first.
func TestStatement(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, s store) {
		b := setup(t, s, 0, 0)
		b.clock.now = time.Date(2025, 2, 28, 23, 59, 59, 0, time.UTC)
		MustCredit(t, b.svc, b.acc.ID, 1)
		b.clock.Advance(time.Second) // 2025-03-01T00:00:00Z
		MustCredit(t, b.svc, b.acc.ID, 2)
		b.clock.Advance(24 * time.Hour)
		MustCredit(t, b.svc, b.acc.ID, 3)
		for month, want := range map[string][]int64{"2025-02": {1}, "2025-03": {2, 3}, "2025-04": nil} {
			got, err := b.svc.Statement(t.Context(), b.acc.ID, month)
			storetest.MustNoError(t, err, "Statement "+month)
			var amounts []int64
			for _, e := range got {
				amounts = append(amounts, e.Amount.Amount)
			}
			if !slices.Equal(amounts, want) {
				t.Errorf("%s: amounts %v, want %v", month, amounts, want)
			}
		}
		for _, bad := range []string{"2025-3", "2025-13", "25-03", "2025-03-01", "", "2025-0\x00"} {
			_, err := b.svc.Statement(t.Context(), b.acc.ID, bad)
			storetest.WantCode(t, err, skygate.CodeBadRequest)
		}
	})
}
