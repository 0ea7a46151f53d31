package storetest

import (
	"errors"
	"fmt"
	"slices"
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

func testESIMOrderRaceForFundsNearPool(t *testing.T, s skygate.Store) {
	// Money for 6 orders, 10 profiles: more orders take a profile than can pay, and
	// those whose debit fails give theirs back. The orders that found the pool short
	// meanwhile must wait for them, not answer PoolExhausted: exactly 6 succeed, every
	// other order is refused for its funds.
	runOrderRace(t, s, orderRace{pool: 10, price: 250, credit: 6 * 250, quantity: 1,
		wantOK: 6, wantCode: skygate.CodeInsufficientFunds})
	// The same with pairs: money for 4, 12 profiles.
	runOrderRace(t, s, orderRace{pool: 12, price: 300, credit: 4 * 600, quantity: 2,
		wantOK: 4, wantCode: skygate.CodeInsufficientFunds})
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
// checks that nothing crosses over) and checks that nothing is oversold and the money
// is exact: exactly wantOK orders succeed, each with its own profiles of the account's
// pool, and the others fail with wantCode and leave nothing behind; the balance is the
// credit less exactly one charge per successful order and never went below zero. The
// profiles sold need not be the oldest: an order whose debit fails gives its profiles
// back after younger orders may have passed them over.
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
	keys := make([]string, raceOrders)
	errs := make([]error, raceOrders)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range raceOrders {
		orders[i] = NewESIMOrder(pkg, r.quantity)
		keys[i] = fmt.Sprintf("race-%d", i)
		wg.Go(func() {
			<-start
			rec := NewESIMRecord(acc.ID, skygate.OperationESIMOrder, keys[i], orders[i].ID, "fp", orders[i].CreatedAt)
			_, errs[i] = s.CreateESIMOrder(t.Context(), rec, orders[i], orderEvents)
		})
	}
	close(start)
	wg.Wait()

	ok := 0
	seen := map[string]string{}
	succeeded := map[string]bool{}
	for i, err := range errs {
		if err != nil {
			WantCode(t, err, r.wantCode)
			// All or nothing: a refused order left no order, key or eSIM behind.
			_, err = s.ESIMOrder(t.Context(), acc.ID, orders[i].ID)
			WantCode(t, err, skygate.CodeNotFound)
			_, err = s.IdempotencyRecord(t.Context(), acc.ID, skygate.OperationESIMOrder, keys[i], orders[i].CreatedAt)
			WantCode(t, err, skygate.CodeNotFound)
			continue
		}
		ok++
		succeeded[orders[i].ID] = true
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
	wantEqual(t, "eSIMs sold", len(seen), r.wantOK*r.quantity)
	for iccid := range seen {
		if !slices.Contains(pool, iccid) {
			t.Fatalf("eSIM %s is not a profile of the account's pool", iccid)
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
	_, total, err = s.ListESIMOrders(t.Context(), acc.ID, skygate.Page{})
	MustNoError(t, err, "ListESIMOrders")
	wantEqual(t, "stored orders", total, r.wantOK)
	avail, assigned := MustPoolCounts(t, s, acc.ID)
	wantEqual(t, "pool", []int{avail, assigned}, []int{r.pool - len(seen), len(seen)})
	if avail, _ := MustPoolCounts(t, s, bystander.ID); avail != r.pool {
		t.Fatalf("the bystander's pool has %d available, want %d", avail, r.pool)
	}
	spent := int64(len(seen)) * r.price
	balance := MustBalances(t, s, acc.ID)["USD"]
	wantEqual(t, "balance", balance, r.credit-spent)
	entries, _, err := s.ListLedger(t.Context(), acc.ID, skygate.Page{})
	MustNoError(t, err, "ListLedger")
	var sum int64
	charged := map[string]bool{}
	for _, e := range entries {
		if e.BalanceAfter < 0 {
			t.Fatalf("ledger entry %+v left a negative balance", e)
		}
		sum += e.Amount.Amount
		if e.Kind != skygate.LedgerCharge {
			continue
		}
		if !succeeded[e.Reference] || charged[e.Reference] {
			t.Fatalf("charge %+v is not the only one of a successful order", e)
		}
		charged[e.Reference] = true
		wantEqual(t, "charge", e.Amount.Amount, -r.price*int64(r.quantity))
	}
	wantEqual(t, "ledger sum", sum, balance)
	if r.price > 0 {
		wantEqual(t, "charges", len(charged), r.wantOK)
	}
	wantEqual(t, "order events", len(MustAccountEvents(t, s, acc.ID)), r.wantOK)
}

// testESIMOrderLastProfileAfterRollback: an order that holds the last profile and then
// fails gives it back to a concurrent order, which must get it instead of
// PoolExhausted (PostgreSQL's SKIP LOCKED alone would skip the held profile).
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

// testESIMOrderDebitFailsLast: an order that took its profile and then finds the
// balance spent by a concurrent order (its debit comes last) fails with
// InsufficientFunds and gives the profile back. The first order is held after its
// allocation while the second one places; on an engine with one writer the second
// waits for the first instead, and then it is the second that is refused. Either
// way exactly one succeeds and the other leaves nothing behind.
func testESIMOrderDebitFailsLast(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	pkg := MustESIMPackage(t, s, acc.ID, WithPrice(400, "USD"))
	MustImportPool(t, s, acc.ID, 2)
	MustCredit(t, s, acc.ID, 400, "USD")
	first := NewESIMOrder(pkg, 1)
	release := HoldESIMOrder(t, s, first, "first", nil)
	second := NewESIMOrder(pkg, 1)
	secondDone := make(chan error, 1)
	go func() {
		_, err := CreateESIMOrder(t, s, second, "second")
		secondDone <- err
	}()
	time.Sleep(300 * time.Millisecond)
	errs := map[*skygate.ESIMOrder]error{first: release()}
	errs[second] = <-secondDone

	var ok *skygate.ESIMOrder
	for o, err := range errs {
		if err == nil {
			if ok != nil {
				t.Fatal("both orders succeeded on money for one")
			}
			ok = o
			continue
		}
		WantCode(t, err, skygate.CodeInsufficientFunds)
		_, err = s.ESIMOrder(t.Context(), acc.ID, o.ID)
		WantCode(t, err, skygate.CodeNotFound)
	}
	if ok == nil {
		t.Fatal("neither order succeeded")
	}
	avail, assigned := MustPoolCounts(t, s, acc.ID)
	wantEqual(t, "pool", []int{avail, assigned}, []int{1, 1})
	wantEqual(t, "balance", MustBalances(t, s, acc.ID)["USD"], int64(0))
	_, total, err := s.ListLedger(t.Context(), acc.ID, skygate.Page{})
	MustNoError(t, err, "ListLedger")
	wantEqual(t, "ledger entries", total, 2)
	wantEvents := 0 // the held order's apply returns no events
	if ok == second {
		wantEvents = 1
	}
	wantEqual(t, "events", len(MustAccountEvents(t, s, acc.ID)), wantEvents)

	// The profile given back is sold to the next order that can pay.
	MustCredit(t, s, acc.ID, 400, "USD")
	MustCreateESIMOrder(t, s, pkg, 1)
	avail, assigned = MustPoolCounts(t, s, acc.ID)
	wantEqual(t, "pool after the next order", []int{avail, assigned}, []int{0, 2})
}
