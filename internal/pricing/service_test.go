package pricing_test

import (
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/catalog"
	"github.com/skygate/skygate/internal/pricing"
	"github.com/skygate/skygate/internal/sqlite/sqlitetest"
	"github.com/skygate/skygate/internal/storetest"
)

// bundle is a Service over a fresh store with the seed catalog and one account.
type bundle struct {
	svc     *pricing.Service
	store   skygate.Store
	account string
	ft      string // a fast-track of the catalog
	// catalogIDs are the catalog's fast-tracks.
	catalogIDs []string
}

func setup(t *testing.T) bundle {
	t.Helper()
	st := sqlitetest.MustOpen(t)
	cat := catalog.NewService(st, func() time.Time { return storetest.T0 })
	if err := cat.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	acc := storetest.MustCreateAccount(t, st)
	return bundle{svc: pricing.New(st, cat, func() time.Time { return storetest.T0 }), store: st, account: acc.ID, ft: cat.FastTrackIDs()[0], catalogIDs: cat.FastTrackIDs()}
}

func ptr(n int64) *int64 { return &n }

func TestSetPricesValidation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ok := func() *pricing.PriceInput {
		return &pricing.PriceInput{FastTrackID: b.ft, Currency: "USD", Adult: 1000}
	}
	for _, tc := range []struct {
		name   string
		items  []*pricing.PriceInput
		fields []string // nil: accepted
	}{
		{"one price", []*pricing.PriceInput{ok()}, nil},
		{"empty removes", []*pricing.PriceInput{}, nil},
		{"nil (a JSON null) refused", nil, []string{""}},
		{"unknown fast-track", []*pricing.PriceInput{{FastTrackID: "nope", Currency: "USD", Adult: 1}}, []string{"[0].fast_track_id"}},
		{"no fast-track", []*pricing.PriceInput{{Currency: "USD", Adult: 1}}, []string{"[0].fast_track_id"}},
		{"lower-case currency", []*pricing.PriceInput{{FastTrackID: b.ft, Currency: "usd", Adult: 1}}, []string{"[0].currency"}},
		{"adult zero, child and infant out of range", []*pricing.PriceInput{{FastTrackID: b.ft, Currency: "USD", Adult: 0, Child: ptr(-1), Infant: ptr(skygate.MaxMoneyAmount + 1)}},
			[]string{"[0].adult", "[0].child", "[0].infant"}},
		{"adult too large", []*pricing.PriceInput{{FastTrackID: b.ft, Currency: "USD", Adult: skygate.MaxMoneyAmount + 1}}, []string{"[0].adult"}},
		{"duplicate", []*pricing.PriceInput{ok(), ok()}, []string{"[1].fast_track_id"}},
		{"null item", []*pricing.PriceInput{nil}, []string{"[0]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := b.svc.SetPrices(t.Context(), b.account, tc.items, storetest.Audit("fast_track.prices.set"))
			if tc.fields == nil {
				storetest.MustNoError(t, err, "SetPrices")
				return
			}
			e, isErr := err.(*skygate.Error)
			if !isErr || e.Code != skygate.CodeValidation {
				t.Fatalf("err = %v, want a validation error", err)
			}
			var got []string
			for _, f := range e.Fields {
				got = append(got, f.Field)
			}
			if len(got) != len(tc.fields) {
				t.Fatalf("fields %v, want %v", got, tc.fields)
			}
			for i := range got {
				if got[i] != tc.fields[i] {
					t.Fatalf("fields %v, want %v", got, tc.fields)
				}
			}
		})
	}
}

func TestSetPricesDefaultsChildAndInfant(t *testing.T) {
	t.Parallel()
	b := setup(t)
	list, err := b.svc.SetPrices(t.Context(), b.account, []*pricing.PriceInput{{FastTrackID: b.ft, Currency: "EUR", Adult: 4000, Infant: ptr(0)}}, storetest.Audit("fast_track.prices.set"))
	storetest.MustNoError(t, err, "SetPrices")
	want := skygate.FastTrackPrice{FastTrackID: b.ft, Currency: "EUR", Adult: 4000, Child: 4000, Infant: 0}
	if len(list.Prices) != 1 || list.Prices[0] != want {
		t.Fatalf("list = %+v, want %+v", list.Prices, want)
	}
	_, err = b.svc.SetPrices(t.Context(), skygate.NewID(), nil, storetest.Audit("fast_track.prices.set"))
	storetest.WantCode(t, err, skygate.CodeNotFound)
}

// TestSeedDemo: the demo list prices every fast-track once; a later start neither
// adds it twice nor undoes an admin's removal.
func TestSeedDemo(t *testing.T) {
	t.Parallel()
	b := setup(t)
	by := skygate.Actor{Subject: skygate.ActorSystem}
	storetest.MustNoError(t, b.svc.SeedDemo(t.Context(), b.account, by), "SeedDemo")
	list := storetest.MustFastTrackPrices(t, b.store, b.account)
	if list.Version != 1 || len(list.Prices) == 0 {
		t.Fatalf("demo list = %+v", list)
	}
	for _, p := range list.Prices {
		if p.Currency != pricing.DemoCurrency || p.Adult != pricing.DemoPrice(p.FastTrackID) || p.Adult < 2500 || p.Adult > 6000 {
			t.Fatalf("demo price %+v", p)
		}
	}
	storetest.MustNoError(t, b.svc.SeedDemo(t.Context(), b.account, by), "SeedDemo again")
	if again := storetest.MustFastTrackPrices(t, b.store, b.account); again.Version != 1 {
		t.Fatalf("second start changed the list: version %d", again.Version)
	}
	storetest.MustSetFastTrackPrices(t, b.store, b.account)
	storetest.MustNoError(t, b.svc.SeedDemo(t.Context(), b.account, by), "SeedDemo after removal")
	if got := storetest.MustFastTrackPrices(t, b.store, b.account); len(got.Prices) != 0 {
		t.Fatalf("a start undid the admin's removal: %+v", got.Prices)
	}
}

func TestCapacity(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	c, err := b.svc.Capacity(ctx, b.ft)
	storetest.MustNoError(t, err, "Capacity")
	if c.Overridden || c.CapacityPerSlot != c.CatalogCapacityPerSlot {
		t.Fatalf("capacity before an override = %+v", c)
	}
	c, err = b.svc.SetCapacity(ctx, b.ft, 75, storetest.Audit("fast_track.capacity.set"))
	storetest.MustNoError(t, err, "SetCapacity")
	if !c.Overridden || c.CapacityPerSlot != 75 {
		t.Fatalf("capacity after an override = %+v", c)
	}
	for _, n := range []int{-1, pricing.MaxCapacity + 1} {
		_, err = b.svc.SetCapacity(ctx, b.ft, n, storetest.Audit("fast_track.capacity.set"))
		storetest.WantCode(t, err, skygate.CodeValidation)
	}
	_, err = b.svc.Capacity(ctx, "nope")
	storetest.WantCode(t, err, skygate.CodeNotFound)
	_, err = b.svc.SetCapacity(ctx, "nope", 5, storetest.Audit("fast_track.capacity.set"))
	storetest.WantCode(t, err, skygate.CodeNotFound)

	// A reset gives the catalog's back, and resetting again answers the same.
	for range 2 {
		c, err = b.svc.ResetCapacity(ctx, b.ft, storetest.Audit("fast_track.capacity.reset"))
		storetest.MustNoError(t, err, "ResetCapacity")
		if c.Overridden || c.CapacityPerSlot != c.CatalogCapacityPerSlot {
			t.Fatalf("capacity after a reset = %+v", c)
		}
	}
	_, err = b.svc.ResetCapacity(ctx, "nope", storetest.Audit("fast_track.capacity.reset"))
	storetest.WantCode(t, err, skygate.CodeNotFound)
}
