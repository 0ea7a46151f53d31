package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// raceOrders is the number of concurrent orders in the race tests.
const raceOrders = 20

func testESIMOrderRaceForPool(t *testing.T, s skygate.Store) {
	// 5 profiles, money for all 20: exactly 5 orders succeed, 15 find the pool empty.
	runOrderRace(t, s, orderRace{pool: 5, price: 300, credit: 300 * raceOrders, quantity: 1,
		wantOK: 5, wantCode: skygate.CodePoolExhausted})
	// Pairs from 9 profiles: 4 orders succeed and one profile stays.
	runOrderRace(t, s, orderRace{pool: 9, price: 300, credit: 600 * raceOrders, quantity: 2,
		wantOK: 4, wantCode: skygate.CodePoolExhausted})
}

func testESIMOrderRaceForFunds(t *testing.T, s skygate.Store) {
	// 30 profiles, money for 7: exactly 7 succeed and the balance ends at zero.
	runOrderRace(t, s, orderRace{pool: 30, price: 250, credit: 7 * 250, quantity: 1,
		wantOK: 7, wantCode: skygate.CodeInsufficientFunds})
}

func testESIMOrderRaceFree(t *testing.T, s skygate.Store) {
	// Free orders take no balance lock: only the pool's row locks keep them apart.
	runOrderRace(t, s, orderRace{pool: 6, price: 0, credit: 0, quantity: 1,
		wantOK: 6, wantCode: skygate.CodePoolExhausted})
}

// orderRace describes raceOrders concurrent orders of quantity eSIMs at price against
// a pool of pool profiles and a balance of credit.
type orderRace struct {
	pool          int
	price, credit int64
	quantity      int
	wantOK        int
	wantCode      string
}

// runOrderRace runs the race on fresh accounts (a bystander account with its own pool
// checks that nothing crosses over) and checks that exactly wantOK orders succeed, the
// others fail with wantCode, no profile is given twice and the balance never goes
// below zero.
func runOrderRace(t *testing.T, s skygate.Store, r orderRace) {
	t.Helper()
	acc, bystander := MustCreateAccount(t, s), MustCreateAccount(t, s)
	pkg := MustESIMPackage(t, s, acc.ID, WithPrice(r.price, "USD"))
	pool := MustImportPool(t, s, acc.ID, r.pool)
	MustImportPool(t, s, bystander.ID, r.pool)
	if r.credit > 0 {
		MustCredit(t, s, acc.ID, r.credit, "USD")
	}

	orders := make([]*skygate.ESIMOrder, raceOrders)
	errs := make([]error, raceOrders)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range raceOrders {
		orders[i] = NewESIMOrder(pkg, r.quantity)
		wg.Go(func() {
			<-start
			rec := NewESIMRecord(acc.ID, skygate.OperationESIMOrder, fmt.Sprintf("race-%d", i), orders[i].ID, "fp", orders[i].CreatedAt)
			_, errs[i] = s.CreateESIMOrder(t.Context(), rec, orders[i], orderEvents)
		})
	}
	close(start)
	wg.Wait()

	ok := 0
	seen := map[string]string{}
	for i, err := range errs {
		if err != nil {
			WantCode(t, err, r.wantCode)
			continue
		}
		ok++
		if len(orders[i].ESIMs) != r.quantity {
			t.Fatalf("order %d got %d eSIMs, want %d", i, len(orders[i].ESIMs), r.quantity)
		}
		for _, e := range orders[i].ESIMs {
			if prev, dup := seen[e.ICCID]; dup {
				t.Fatalf("profile %s given to orders %s and %s", e.ICCID, prev, orders[i].ID)
			}
			seen[e.ICCID] = orders[i].ID
		}
	}
	wantEqual(t, "successful orders", ok, r.wantOK)
	for _, iccid := range pool[:r.wantOK*r.quantity] {
		if _, ok := seen[iccid]; !ok {
			t.Fatalf("the oldest profile %s was not allocated", iccid)
		}
	}

	// What the store kept agrees with what the callers were told.
	list, total, err := s.ListESIMs(t.Context(), acc.ID, skygate.ESIMFilter{}, skygate.Page{})
	MustNoError(t, err, "ListESIMs")
	wantEqual(t, "stored eSIMs", total, len(seen))
	for _, e := range list {
		if seen[e.ICCID] != e.OrderID {
			t.Fatalf("eSIM %s is stored for order %s, the caller was told %s", e.ICCID, e.OrderID, seen[e.ICCID])
		}
	}
	avail, assigned := MustPoolCounts(t, s, acc.ID)
	wantEqual(t, "pool", []int{avail, assigned}, []int{r.pool - len(seen), len(seen)})
	if avail, _ := MustPoolCounts(t, s, bystander.ID); avail != r.pool {
		t.Fatalf("the bystander's pool has %d available, want %d", avail, r.pool)
	}
	spent := int64(len(seen)) * r.price
	wantEqual(t, "balance", MustBalances(t, s, acc.ID)["USD"], r.credit-spent)
	entries, _, err := s.ListLedger(t.Context(), acc.ID, skygate.Page{})
	MustNoError(t, err, "ListLedger")
	for _, e := range entries {
		if e.BalanceAfter < 0 {
			t.Fatalf("ledger entry %+v left a negative balance", e)
		}
	}
	wantEqual(t, "order events", len(MustAccountEvents(t, s, acc.ID)), r.wantOK)
}

// testESIMOrderLastProfileAfterRollback: an order that holds the last profile and then
// fails gives it back to a concurrent order, which must get it instead of
// PoolExhausted (PostgreSQL's SKIP LOCKED alone would skip the held profile). A free
// package, so that no balance row puts the two orders in line.
func testESIMOrderLastProfileAfterRollback(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	pkg := MustESIMPackage(t, s, acc.ID, WithPrice(0, "USD"))
	pool := MustImportPool(t, s, acc.ID, 1)
	first := NewESIMOrder(pkg, 1)
	release := HoldESIMOrder(t, s, first, "first", errors.New("the first order fails after taking the profile"))
	second := NewESIMOrder(pkg, 1)
	secondDone := make(chan error, 1)
	go func() {
		_, err := CreateESIMOrder(t, s, second, "second")
		secondDone <- err
	}()
	// Give the second order time to reach the held profile. (Should it not get there
	// in time, it simply finds the profile free and the test proves less.)
	time.Sleep(300 * time.Millisecond)
	if err := release(); err == nil {
		t.Fatal("the first order succeeded")
	}
	MustNoError(t, <-secondDone, "the second order, after the first gave the profile back")
	wantEqual(t, "second order's eSIM", second.ICCIDs(), pool)
}
