package esim_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/esim"
	"github.com/skygate/skygate/internal/storetest"
)

// TestOrderRace sends 20 concurrent orders for the last profiles of a pool or the last
// money of a balance: exactly as many succeed as the pool and the balance allow, the
// others get PoolExhausted or InsufficientFunds, no profile is sold twice and the
// balance never goes below zero.
func TestOrderRace(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		pool     int
		credit   int64 // the package costs 500
		quantity int
		wantOK   int
		wantCode string
	}{
		{"LastProfiles", 7, 500 * 20, 1, 7, skygate.CodePoolExhausted},
		{"LastProfilesInThrees", 10, 1500 * 20, 3, 3, skygate.CodePoolExhausted},
		{"LastMoney", 40, 500 * 6, 1, 6, skygate.CodeInsufficientFunds},
		{"LastMoneyInPairs", 40, 500*9 + 499, 2, 4, skygate.CodeInsufficientFunds},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			forEachEngine(t, func(t *testing.T, s store) {
				b := setup(t, s, tt.pool, tt.credit)
				const n = 20
				results := make([]*skygate.ESIMOrder, n)
				errs := make([]error, n)
				start := make(chan struct{})
				var wg sync.WaitGroup
				for i := range n {
					wg.Go(func() {
						<-start
						results[i], _, errs[i] = b.svc.Order(t.Context(), esim.OrderCommand{AccountID: b.acc.ID, ClientID: "c", IdempotencyKey: fmt.Sprintf("race-%d", i), Lang: "en", OrderRequest: esim.OrderRequest{PackageID: b.pkg.ID, Quantity: tt.quantity}})
					})
				}
				close(start)
				wg.Wait()

				ok := 0
				owner := map[string]string{}
				for i, err := range errs {
					if err != nil {
						storetest.WantCode(t, err, tt.wantCode)
						continue
					}
					ok++
					for _, e := range results[i].ESIMs {
						if prev, dup := owner[e.ICCID]; dup {
							t.Fatalf("profile %s sold to %s and %s", e.ICCID, prev, results[i].ID)
						}
						owner[e.ICCID] = results[i].ID
					}
				}
				if ok != tt.wantOK || len(owner) != tt.wantOK*tt.quantity {
					t.Fatalf("%d orders succeeded with %d eSIMs, want %d orders", ok, len(owner), tt.wantOK)
				}
				billing, err := b.svc.Billing(t.Context(), b.acc.ID, skygate.Page{Limit: 500})
				storetest.MustNoError(t, err, "Billing")
				want := tt.credit - int64(len(owner))*500
				if len(billing.Balances) != 1 || billing.Balances[0].Amount != want {
					t.Fatalf("balances %+v, want %d USD", billing.Balances, want)
				}
				for _, e := range billing.Ledger.Data {
					if e.BalanceAfter < 0 {
						t.Fatalf("ledger entry %+v is below zero", e)
					}
				}
				counts, err := b.svc.PoolCounts(t.Context(), b.acc.ID)
				storetest.MustNoError(t, err, "PoolCounts")
				if counts.ByStatus[skygate.PoolAssigned] != len(owner) || counts.Total != tt.pool {
					t.Fatalf("pool %+v after %d eSIMs", counts, len(owner))
				}
			})
		})
	}
}

// TestOrderSameKeyConcurrently sends one request ten times at once: one order is
// created and every caller gets it.
func TestOrderSameKeyConcurrently(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, s store) {
		b := setup(t, s, 10, 100_000)
		const n = 10
		results := make([]*skygate.ESIMOrder, n)
		replayed := make([]bool, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				results[i], replayed[i], errs[i] = b.svc.Order(t.Context(), esim.OrderCommand{AccountID: b.acc.ID, ClientID: "c", IdempotencyKey: "same", Lang: "en", OrderRequest: esim.OrderRequest{PackageID: b.pkg.ID, Quantity: 2}})
			})
		}
		wg.Wait()
		created := 0
		for i, err := range errs {
			storetest.MustNoError(t, err, "Order")
			if !replayed[i] {
				created++
			}
			if results[i].ID != results[0].ID || len(results[i].ESIMs) != 2 {
				t.Fatalf("caller %d got order %s with %d eSIMs, caller 0 %s", i, results[i].ID,
					len(results[i].ESIMs), results[0].ID)
			}
		}
		list, err := b.svc.ListOrders(t.Context(), b.acc.ID, "en", skygate.Page{})
		storetest.MustNoError(t, err, "ListOrders")
		if created != 1 || list.Pagination.Total != 1 {
			t.Fatalf("%d callers created, %d orders stored; want 1 and 1", created, list.Pagination.Total)
		}
	})
}
