package storetest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

func testESIMOrderCreate(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	pkg := MustESIMPackage(t, s, acc.ID)
	pool := MustImportPool(t, s, acc.ID, 5)
	MustCredit(t, s, acc.ID, 2000, "USD")

	o := MustCreateESIMOrder(t, s, pkg, 3)
	wantEqual(t, "status", o.Status, skygate.ESIMOrderCompleted)
	wantEqual(t, "ICCIDs, oldest first by ICCID", o.ICCIDs(), slices.Sorted(slices.Values(pool[:3])))
	for _, e := range o.ESIMs {
		wantEqual(t, "eSIM status", e.Status, skygate.ESIMAssigned)
		wantEqual(t, "eSIM usage", e.Usage, skygate.NewESIMUsage(pkg.DataMB, 0))
		wantEqual(t, "eSIM validity", e.ValidityDays, pkg.ValidityDays)
		wantEqual(t, "sealed matching id", string(e.MatchingIDSealed), "sealed-"+e.ICCID)
		wantEqual(t, "SM-DP+", e.SMDPAddress, "smdp.example.com")
	}
	got, err := s.ESIMOrder(t.Context(), acc.ID, o.ID)
	MustNoError(t, err, "ESIMOrder")
	wantEqual(t, "order read back", got, o)
	wantUTC(t, "order", got.CreatedAt, got.ESIMs[0].CreatedAt)

	avail, assigned := MustPoolCounts(t, s, acc.ID)
	wantEqual(t, "pool after order", []int{avail, assigned}, []int{2, 3})
	wantEqual(t, "balance", MustBalances(t, s, acc.ID), map[string]int64{"USD": 500})
	entries, total, err := s.ListLedger(t.Context(), acc.ID, skygate.Page{Limit: 1})
	MustNoError(t, err, "ListLedger")
	wantEqual(t, "ledger total", total, 2)
	charge := entries[0]
	wantEqual(t, "charge", []any{charge.Kind, charge.Amount, charge.BalanceAfter, charge.Reference},
		[]any{skygate.LedgerCharge, skygate.Money{Amount: -1500, Currency: "USD"}, int64(500), o.ID})

	events := MustAccountEvents(t, s, acc.ID)
	wantEqual(t, "events", len(events), 1)
	wantEqual(t, "event type", events[0].Type, skygate.EventESIMOrderCompleted)
	var data skygate.ESIMOrderCompletedData
	MustNoError(t, json.Unmarshal(events[0].Data, &data), "decode event")
	wantEqual(t, "event iccids", data.ICCIDs, o.ICCIDs())
	if strings.Contains(string(events[0].Data), "sealed") || strings.Contains(string(events[0].Data), "LPA:") {
		t.Fatalf("event data carries profile secrets: %s", events[0].Data)
	}

	list, total, err := s.ListESIMOrders(t.Context(), acc.ID, skygate.Page{Limit: 10})
	MustNoError(t, err, "ListESIMOrders")
	wantEqual(t, "orders", list, []*skygate.ESIMOrder{o})
	wantEqual(t, "orders total", total, 1)
}

func testESIMOrderIdempotency(t *testing.T, s skygate.Store) {
	acc, other := MustCreateAccount(t, s), MustCreateAccount(t, s)
	pkg := MustESIMPackage(t, s, acc.ID)
	otherPkg := MustESIMPackage(t, s, other.ID)
	MustImportPool(t, s, acc.ID, 5)
	MustImportPool(t, s, other.ID, 1)
	MustCredit(t, s, acc.ID, 5000, "USD")
	MustCredit(t, s, other.ID, 5000, "USD")

	first := NewESIMOrder(pkg, 1)
	rec := NewESIMRecord(acc.ID, skygate.OperationESIMOrder, "k", first.ID, "a", first.CreatedAt)
	replay, err := s.CreateESIMOrder(t.Context(), rec, first, orderEvents)
	MustNoError(t, err, "CreateESIMOrder")
	if replay != nil {
		t.Fatalf("first order replayed %+v", replay)
	}
	stored, err := s.IdempotencyRecord(t.Context(), acc.ID, skygate.OperationESIMOrder, "k", At(2*time.Hour))
	MustNoError(t, err, "IdempotencyRecord")
	wantEqual(t, "stored record", stored, rec)

	second := NewESIMOrder(pkg, 2)
	replay, err = s.CreateESIMOrder(t.Context(),
		NewESIMRecord(acc.ID, skygate.OperationESIMOrder, "k", second.ID, "b", second.CreatedAt), second, orderEvents)
	MustNoError(t, err, "CreateESIMOrder with a used key")
	wantEqual(t, "replay", replay, rec)
	_, err = s.ESIMOrder(t.Context(), acc.ID, second.ID)
	WantCode(t, err, skygate.CodeNotFound)
	avail, _ := MustPoolCounts(t, s, acc.ID)
	wantEqual(t, "pool after replay", avail, 4)
	wantEqual(t, "balance after replay", MustBalances(t, s, acc.ID)["USD"], int64(4500))
	wantEqual(t, "events after replay", len(MustAccountEvents(t, s, acc.ID)), 1)

	// Keys are per account and per operation.
	o := NewESIMOrder(otherPkg, 1)
	replay, err = CreateESIMOrder(t, s, o, "k")
	MustNoError(t, err, "other account's order with the same key")
	if replay != nil {
		t.Fatalf("another account's key was replayed: %+v", replay)
	}

	// After expiry the key is free again.
	late := NewESIMOrder(pkg, 1)
	late.CreatedAt = rec.ExpiresAt
	replay, err = s.CreateESIMOrder(t.Context(),
		NewESIMRecord(acc.ID, skygate.OperationESIMOrder, "k", late.ID, "c", late.CreatedAt), late, orderEvents)
	MustNoError(t, err, "CreateESIMOrder after expiry")
	if replay != nil {
		t.Fatalf("an expired key was replayed: %+v", replay)
	}
}

func testESIMOrderFailures(t *testing.T, s skygate.Store) {
	acc, other := MustCreateAccount(t, s), MustCreateAccount(t, s)
	pkg := MustESIMPackage(t, s, acc.ID)
	eur := MustESIMPackage(t, s, acc.ID, WithPrice(100, "EUR"))
	otherPkg := MustESIMPackage(t, s, other.ID)
	MustImportPool(t, s, acc.ID, 2)
	MustCredit(t, s, acc.ID, 1200, "USD")

	tests := []struct {
		name  string
		order func() *skygate.ESIMOrder
		code  string
	}{
		{"InsufficientFunds", func() *skygate.ESIMOrder { return NewESIMOrder(pkg, 3) }, skygate.CodeInsufficientFunds},
		{"NoBalanceInCurrency", func() *skygate.ESIMOrder { return NewESIMOrder(eur, 1) }, skygate.CodeInsufficientFunds},
		{"PriceChanged", func() *skygate.ESIMOrder {
			o := NewESIMOrder(pkg, 1)
			o.UnitPrice, o.Total = skygate.Money{Currency: "USD"}, skygate.Money{Currency: "USD"}
			return o
		}, skygate.CodeConflict},
		{"PoolExhausted", func() *skygate.ESIMOrder {
			p := MustESIMPackage(t, s, acc.ID, WithPrice(1, "USD"))
			return NewESIMOrder(p, 3)
		}, skygate.CodePoolExhausted},
		{"OtherAccountsPackage", func() *skygate.ESIMOrder {
			o := NewESIMOrder(otherPkg, 1)
			o.AccountID = acc.ID
			return o
		}, skygate.CodeNotFound},
		{"UnknownPackage", func() *skygate.ESIMOrder {
			o := NewESIMOrder(pkg, 1)
			o.PackageID = skygate.NewID()
			return o
		}, skygate.CodeNotFound},
	}
	for _, tt := range tests {
		o := tt.order()
		key := "key-" + tt.name
		_, err := CreateESIMOrder(t, s, o, key)
		WantCode(t, err, tt.code)
		_, err = s.ESIMOrder(t.Context(), acc.ID, o.ID)
		WantCode(t, err, skygate.CodeNotFound)
		_, err = s.IdempotencyRecord(t.Context(), acc.ID, skygate.OperationESIMOrder, key, o.CreatedAt)
		WantCode(t, err, skygate.CodeNotFound)
		avail, _ := MustPoolCounts(t, s, acc.ID)
		wantEqual(t, tt.name+": pool", avail, 2)
		wantEqual(t, tt.name+": balance", MustBalances(t, s, acc.ID), map[string]int64{"USD": 1200})
		wantEqual(t, tt.name+": events", len(MustAccountEvents(t, s, acc.ID)), 0)
	}
	// A failed attempt does not burn its key: after a credit the same key succeeds.
	MustCredit(t, s, acc.ID, 300, "USD")
	o := NewESIMOrder(pkg, 3)
	MustImportPool(t, s, acc.ID, 1)
	replay, err := CreateESIMOrder(t, s, o, "key-InsufficientFunds")
	MustNoError(t, err, "retry after credit")
	if replay != nil {
		t.Fatalf("retry replayed %+v", replay)
	}
	wantEqual(t, "balance after retry", MustBalances(t, s, acc.ID)["USD"], int64(0))
}

func testESIMOrderOtherAccount(t *testing.T, s skygate.Store) {
	acc, other := MustCreateAccount(t, s), MustCreateAccount(t, s)
	pkg := MustESIMPackage(t, s, acc.ID)
	MustImportPool(t, s, acc.ID, 1)
	MustCredit(t, s, acc.ID, 500, "USD")
	o := MustCreateESIMOrder(t, s, pkg, 1)
	iccid := o.ESIMs[0].ICCID

	_, err := s.ESIMOrder(t.Context(), other.ID, o.ID)
	WantCode(t, err, skygate.CodeNotFound)
	_, err = s.ESIM(t.Context(), other.ID, iccid)
	WantCode(t, err, skygate.CodeNotFound)
	_, err = s.UpdateESIM(t.Context(), other.ID, iccid, At(2*time.Hour), installApply(At(2*time.Hour)))
	WantCode(t, err, skygate.CodeNotFound)
	orders, total, err := s.ListESIMOrders(t.Context(), other.ID, skygate.Page{})
	MustNoError(t, err, "ListESIMOrders")
	wantEqual(t, "other's orders", []int{len(orders), total}, []int{0, 0})
	esims, total, err := s.ListESIMs(t.Context(), other.ID, skygate.ESIMFilter{OrderID: o.ID}, skygate.Page{})
	MustNoError(t, err, "ListESIMs")
	wantEqual(t, "other's eSIMs", []int{len(esims), total}, []int{0, 0})
	c, err := s.PoolCounts(t.Context(), other.ID)
	MustNoError(t, err, "PoolCounts")
	wantEqual(t, "other's pool", c.Total, 0)
	wantEqual(t, "other's balances", MustBalances(t, s, other.ID), map[string]int64{})
	_, total, err = s.ListLedger(t.Context(), other.ID, skygate.Page{})
	MustNoError(t, err, "ListLedger")
	wantEqual(t, "other's ledger", total, 0)
	if MustESIM(t, s, acc.ID, iccid).Status != skygate.ESIMAssigned {
		t.Fatal("the other account's update changed the eSIM")
	}
}

// installApply is the ESIMApply of the sandbox install at now.
func installApply(now time.Time) skygate.ESIMApply {
	return func(before, after *skygate.ESIM) ([]*skygate.Event, error) {
		if err := after.Install(now); err != nil {
			return nil, err
		}
		return skygate.ESIMEvents(before, after, now)
	}
}

// activateApply is the ESIMApply of the sandbox activate at now.
func activateApply(now time.Time) skygate.ESIMApply {
	return func(before, after *skygate.ESIM) ([]*skygate.Event, error) {
		if err := after.Activate(now); err != nil {
			return nil, err
		}
		return skygate.ESIMEvents(before, after, now)
	}
}

// usageApply is the ESIMApply of a usage report of usedMB at now.
func usageApply(usedMB int, now time.Time) skygate.ESIMApply {
	return func(before, after *skygate.ESIM) ([]*skygate.Event, error) {
		if err := after.ReportUsage(usedMB, skygate.DefaultUsageThresholds); err != nil {
			return nil, err
		}
		return skygate.ESIMEvents(before, after, now)
	}
}

// MustActivate installs and activates the account's eSIM at now.
func MustActivate(tb testing.TB, s skygate.Store, accountID, iccid string, now time.Time) *skygate.ESIM {
	tb.Helper()
	_, err := s.UpdateESIM(tb.Context(), accountID, iccid, now, installApply(now))
	MustNoError(tb, err, "UpdateESIM install")
	e, err := s.UpdateESIM(tb.Context(), accountID, iccid, now, activateApply(now))
	MustNoError(tb, err, "UpdateESIM activate")
	return e
}

// testESIMOrderDeliversItsEvent: an order of an account with an active webhook
// enqueues one delivery of its event, in the order's transaction, with the order's
// eSIMs in the body; an order that fails enqueues nothing.
func testESIMOrderDeliversItsEvent(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	hook := MustCreateWebhook(t, s, acc.ID)
	pkg := MustESIMPackage(t, s, acc.ID)
	MustImportPool(t, s, acc.ID, 3)
	MustCredit(t, s, acc.ID, pkg.Price.Amount*2, pkg.Price.Currency)

	o := MustCreateESIMOrder(t, s, pkg, 2)
	_, err := CreateESIMOrder(t, s, NewESIMOrder(pkg, 1), "key-broke") // the balance is spent
	WantCode(t, err, skygate.CodeInsufficientFunds)

	list, total, err := s.ListWebhookDeliveries(t.Context(), acc.ID, hook.ID, skygate.Page{})
	MustNoError(t, err, "ListWebhookDeliveries")
	if total != 1 || len(list) != 1 || list[0].EventType != skygate.EventESIMOrderCompleted {
		t.Fatalf("deliveries after one order and one failure: %d %+v", total, list)
	}
	jobs := MustClaim(t, s, At(2*time.Hour), At(3*time.Hour), 10)
	if len(jobs) != 1 {
		t.Fatalf("claimed %d deliveries, want the order's one", len(jobs))
	}
	for _, iccid := range o.ICCIDs() {
		if !strings.Contains(string(jobs[0].Body), iccid) {
			t.Fatalf("the delivery's body %s lacks the order's eSIM %s", jobs[0].Body, iccid)
		}
	}
}

// testESIMOrderListPages: every page of orders carries exactly its orders' eSIMs, by
// ICCID, as ESIMOrder reads them.
func testESIMOrderListPages(t *testing.T, s skygate.Store) {
	acc, other := MustCreateAccount(t, s), MustCreateAccount(t, s)
	pkg := MustESIMPackage(t, s, acc.ID, WithPrice(0, "USD"))
	otherPkg := MustESIMPackage(t, s, other.ID, WithPrice(0, "USD"))
	MustImportPool(t, s, acc.ID, 6)
	MustImportPool(t, s, other.ID, 2)
	MustCreateESIMOrder(t, s, otherPkg, 2)
	var orders []*skygate.ESIMOrder // newest first
	for i, quantity := range []int{2, 1, 3} {
		o := NewESIMOrder(pkg, quantity)
		o.CreatedAt = At(time.Duration(i+1) * time.Hour)
		_, err := CreateESIMOrder(t, s, o, "key-"+NewID())
		MustNoError(t, err, "CreateESIMOrder")
		orders = append([]*skygate.ESIMOrder{o}, orders...)
	}
	for _, o := range orders {
		got, err := s.ESIMOrder(t.Context(), acc.ID, o.ID)
		MustNoError(t, err, "ESIMOrder")
		wantEqual(t, "order read back", got, o)
	}
	for _, p := range []skygate.Page{{Limit: 2}, {Limit: 2, Offset: 2}, {Limit: 1, Offset: 1}, {}} {
		list, total, err := s.ListESIMOrders(t.Context(), acc.ID, p)
		MustNoError(t, err, "ListESIMOrders")
		wantEqual(t, "total", total, 3)
		end := len(orders)
		if p.Limit > 0 {
			end = min(end, p.Offset+p.Limit)
		}
		wantEqual(t, fmt.Sprintf("page %+v", p), list, orders[p.Offset:end])
	}
}
