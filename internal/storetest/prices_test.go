package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// priceTests cover accounts' fast-track price lists and the admins' capacities per
// slot.
var priceTests = []test{
	{"NeverSet", testPricesNeverSet},
	{"Replace", testPricesReplace},
	{"EmptyRemoves", testPricesEmptyRemoves},
	{"OtherAccount", testPricesOtherAccount},
	{"UnknownAccount", testPricesUnknownAccount},
	{"Duplicate", testPricesDuplicate},
	{"PriceFor", testPriceFor},
	{"Capacity", testFastTrackCapacity},
	{"Audited", func(t *testing.T, s skygate.Store) { checkAuditedWrites(t, s, priceAuditedWrites) }},
}

func testPricesNeverSet(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	list := MustFastTrackPrices(t, s, acc.ID)
	if list.Version != 0 || list.UpdatedAt != nil || list.Prices == nil || len(list.Prices) != 0 {
		t.Fatalf("list never set = %+v, want no prices, version 0, no time", list)
	}
	wantNoPrice(t, s, acc.ID, "ft-1")
}

func testPricesReplace(t *testing.T, s skygate.Store) {
	ctx := t.Context()
	acc := MustCreateAccount(t, s)
	first := MustSetFastTrackPrices(t, s, acc.ID, NewFastTrackPrice("ft-b", 2000), NewFastTrackPrice("ft-a", 1500))
	wantEqual(t, "first list", first.Prices, []skygate.FastTrackPrice{NewFastTrackPrice("ft-a", 1500), NewFastTrackPrice("ft-b", 2000)})
	if first.Version != 1 || first.UpdatedAt == nil || !first.UpdatedAt.Equal(Stored(T0)) {
		t.Fatalf("first list = version %d at %v, want 1 at T0", first.Version, first.UpdatedAt)
	}
	wantUTC(t, "updated_at", *first.UpdatedAt)

	eur := skygate.FastTrackPrice{FastTrackID: "ft-b", Currency: "EUR", Adult: 2500, Child: 2500, Infant: 100}
	second, err := s.SetFastTrackPrices(ctx, acc.ID, []skygate.FastTrackPrice{NewFastTrackPrice("ft-c", 900), eur}, At(time.Hour), Audit("SetFastTrackPrices"))
	MustNoError(t, err, "SetFastTrackPrices")
	want := []skygate.FastTrackPrice{eur, NewFastTrackPrice("ft-c", 900)}
	wantEqual(t, "replaced list", second.Prices, want)
	if second.Version <= first.Version || !second.UpdatedAt.Equal(Stored(At(time.Hour))) {
		t.Fatalf("replaced list = version %d at %v, want above %d at T0+1h", second.Version, second.UpdatedAt, first.Version)
	}
	wantEqual(t, "read back", MustFastTrackPrices(t, s, acc.ID), second)

	got, _, err := s.PriceFor(ctx, acc.ID, "ft-b")
	MustNoError(t, err, "PriceFor")
	wantEqual(t, "one price", *got, eur)
	wantNoPrice(t, s, acc.ID, "ft-a")
}

func testPricesEmptyRemoves(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	first := MustSetFastTrackPrices(t, s, acc.ID, NewFastTrackPrice("ft-a", 1500))
	removed := MustSetFastTrackPrices(t, s, acc.ID)
	if len(removed.Prices) != 0 || removed.Prices == nil || removed.Version <= first.Version || removed.UpdatedAt == nil {
		t.Fatalf("removed list = %+v, want no prices and a new version", removed)
	}
	wantEqual(t, "read back", MustFastTrackPrices(t, s, acc.ID), removed)
	wantNoPrice(t, s, acc.ID, "ft-a")
}

func testPricesOtherAccount(t *testing.T, s skygate.Store) {
	mine, other := MustCreateAccount(t, s), MustCreateAccount(t, s)
	list := MustSetFastTrackPrices(t, s, mine.ID, NewFastTrackPrice("ft-a", 1500))
	if got := MustFastTrackPrices(t, s, other.ID); len(got.Prices) != 0 || got.Version != 0 {
		t.Fatalf("another account's list shows: %+v", got)
	}
	wantNoPrice(t, s, other.ID, "ft-a")
	MustSetFastTrackPrices(t, s, other.ID, NewFastTrackPrice("ft-a", 9900))
	wantEqual(t, "mine after the other's change", MustFastTrackPrices(t, s, mine.ID), list)
}

func testPricesUnknownAccount(t *testing.T, s skygate.Store) {
	for _, prices := range [][]skygate.FastTrackPrice{nil, {NewFastTrackPrice("ft-a", 1500)}} {
		_, err := s.SetFastTrackPrices(t.Context(), NewID(), prices, T0, Audit("SetFastTrackPrices"))
		WantCode(t, err, skygate.CodeNotFound)
	}
}

// testPricesDuplicate: a list naming a fast-track twice is refused whole.
func testPricesDuplicate(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	list := MustSetFastTrackPrices(t, s, acc.ID, NewFastTrackPrice("ft-a", 1500))
	dup := []skygate.FastTrackPrice{NewFastTrackPrice("ft-b", 1000), NewFastTrackPrice("ft-b", 1200)}
	_, err := s.SetFastTrackPrices(t.Context(), acc.ID, dup, At(time.Hour), Audit("SetFastTrackPrices"))
	WantCode(t, err, skygate.CodeConflict)
	wantEqual(t, "list after the refusal", MustFastTrackPrices(t, s, acc.ID), list)
}

func testFastTrackCapacity(t *testing.T, s skygate.Store) {
	ctx := t.Context()
	if _, ok, err := s.FastTrackCapacity(ctx, "ft-a"); err != nil || ok {
		t.Fatalf("capacity never set = ok %v, %v; want none", ok, err)
	}
	for _, want := range []int{40, 0, 120} {
		MustNoError(t, s.SetFastTrackCapacity(ctx, "ft-a", want, T0, Audit("SetFastTrackCapacity")), "SetFastTrackCapacity")
		got, ok, err := s.FastTrackCapacity(ctx, "ft-a")
		MustNoError(t, err, "FastTrackCapacity")
		if !ok || got != want {
			t.Fatalf("capacity = %d (ok %v), want %d", got, ok, want)
		}
	}
	if _, ok, _ := s.FastTrackCapacity(ctx, "ft-b"); ok {
		t.Fatal("another fast-track has the capacity")
	}
	WantCode(t, s.SetFastTrackCapacity(ctx, "ft-a", -1, T0, Audit("SetFastTrackCapacity")), skygate.CodeBadRequest)
}

// priceAuditedWrites are the audited writes of prices and capacities
// (checkAuditedWrites).
var priceAuditedWrites = []auditedWrite{
	{"SetFastTrackPrices", func(t *testing.T, s skygate.Store) (writeFunc, writeFunc, func() bool) {
		acc := MustCreateAccount(t, s)
		set := func(accountID string) writeFunc {
			return func(ctx context.Context, e *skygate.AuditEvent) error {
				_, err := s.SetFastTrackPrices(ctx, accountID, []skygate.FastTrackPrice{NewFastTrackPrice("ft-a", 1500)}, T0, e)
				return err
			}
		}
		return set(NewID()), set(acc.ID), func() bool { return len(MustFastTrackPrices(t, s, acc.ID).Prices) == 1 }
	}},
	{"SetFastTrackCapacity", func(t *testing.T, s skygate.Store) (writeFunc, writeFunc, func() bool) {
		id := "ft-" + NewID()
		set := func(capacity int) writeFunc {
			return func(ctx context.Context, e *skygate.AuditEvent) error {
				return s.SetFastTrackCapacity(ctx, id, capacity, T0, e)
			}
		}
		return set(-1), set(60), func() bool { n, ok, _ := s.FastTrackCapacity(t.Context(), id); return ok && n == 60 }
	}},
}

// testPriceFor: one read tells the price of a fast-track and whether the account has
// a price list, for an account without one, with one that prices the fast-track, with
// one that does not, and for another account.
func testPriceFor(t *testing.T, s skygate.Store) {
	acc, other := MustCreateAccount(t, s), MustCreateAccount(t, s)
	priced, unpriced := skygate.NewID(), skygate.NewID()
	check := func(accountID, fastTrackID string, want *skygate.FastTrackPrice, wantList bool) {
		t.Helper()
		got, has, err := s.PriceFor(t.Context(), accountID, fastTrackID)
		MustNoError(t, err, "PriceFor")
		wantEqual(t, "has a price list", has, wantList)
		wantEqual(t, "price", got, want)
	}
	check(acc.ID, priced, nil, false)
	p := NewFastTrackPrice(priced, 3500)
	MustSetFastTrackPrices(t, s, acc.ID, p)
	check(acc.ID, priced, &p, true)
	check(acc.ID, unpriced, nil, true)
	check(other.ID, priced, nil, false)
}

// wantNoPrice fails unless the account has no price of the fast-track.
func wantNoPrice(t *testing.T, s skygate.Store, accountID, fastTrackID string) {
	t.Helper()
	got, _, err := s.PriceFor(t.Context(), accountID, fastTrackID)
	MustNoError(t, err, "PriceFor")
	if got != nil {
		t.Fatalf("price of %s = %+v, want none", fastTrackID, got)
	}
}
