package esim_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/esim"
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

// statementAmounts reads the month's statement and returns its amounts and the sizes
// of the chunks it came in.
func statementAmounts(t *testing.T, svc *esim.Service, accountID, month string) (amounts []int64, chunks []int, err error) {
	t.Helper()
	err = svc.Statement(t.Context(), accountID, month, func(lines []*skygate.LedgerEntry) error {
		chunks = append(chunks, len(lines))
		for _, e := range lines {
			amounts = append(amounts, e.Amount.Amount)
		}
		return nil
	})
	return amounts, chunks, err
}

// TestStatement checks the statement's month: YYYY-MM only, a UTC month, oldest
// first, read in chunks of the configured size.
func TestStatement(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, s store) {
		b := setup(t, s, 0, 0)
		b.clock.now = time.Date(2025, 2, 28, 23, 59, 59, 0, time.UTC)
		MustCredit(t, b.svc, b.acc.ID, 1)
		b.clock.Advance(time.Second) // 2025-03-01T00:00:00Z
		for amount := range int64(5) {
			MustCredit(t, b.svc, b.acc.ID, 2+amount)
			b.clock.Advance(24 * time.Hour)
		}
		chunked := esim.New(esim.Config{Store: s, Sealer: b.box, Clock: b.clock.Now, StatementChunk: 2})
		for _, tc := range []struct {
			svc     *esim.Service
			month   string
			amounts []int64
			chunks  []int
		}{
			{b.svc, "2025-02", []int64{1}, []int{1}},
			{b.svc, "2025-03", []int64{2, 3, 4, 5, 6}, []int{5}},
			{b.svc, "2025-04", nil, nil},
			{chunked, "2025-03", []int64{2, 3, 4, 5, 6}, []int{2, 2, 1}},
			{chunked, "2025-02", []int64{1}, []int{1}},
		} {
			amounts, chunks, err := statementAmounts(t, tc.svc, b.acc.ID, tc.month)
			storetest.MustNoError(t, err, "Statement "+tc.month)
			if !slices.Equal(amounts, tc.amounts) || !slices.Equal(chunks, tc.chunks) {
				t.Errorf("%s: amounts %v in chunks %v, want %v in %v", tc.month, amounts, chunks, tc.amounts, tc.chunks)
			}
		}
		// An error of the caller stops the statement after its chunk.
		stop := errors.New("client gone")
		calls := 0
		err := chunked.Statement(t.Context(), b.acc.ID, "2025-03", func([]*skygate.LedgerEntry) error { calls++; return stop })
		if !errors.Is(err, stop) || calls != 1 {
			t.Errorf("stopped statement: %v after %d calls, want %v after 1", err, calls, stop)
		}
		for _, bad := range []string{"2025-3", "2025-13", "25-03", "2025-03-01", "", "2025-0\x00"} {
			_, _, err := statementAmounts(t, b.svc, b.acc.ID, bad)
			storetest.WantCode(t, err, skygate.CodeBadRequest)
		}
	})
}
