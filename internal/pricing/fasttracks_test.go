package pricing_test

import (
	"cmp"
	"slices"
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/catalog"
	"github.com/skygate/skygate/internal/pricing"
	"github.com/skygate/skygate/internal/storetest"
)

// TestFastTracks: the employees' list holds every fast-track of the catalog once, in
// hub then name order, with the capacity in force and whether an admin set it.
func TestFastTracks(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	before, err := b.svc.FastTracks(ctx, skygate.LangEN)
	storetest.MustNoError(t, err, "FastTracks")
	if len(before) < 2 {
		t.Fatalf("the seed catalog lists %d fast-tracks", len(before))
	}
	var ids []string
	for _, ft := range before {
		ids = append(ids, ft.ID)
		if ft.Name == "" || len(ft.Hub) != 3 || ft.Overridden || ft.CapacityPerSlot != ft.CatalogCapacityPerSlot {
			t.Fatalf("fast-track before any override = %+v", ft)
		}
	}
	slices.Sort(ids)
	if n, distinct := len(ids), len(slices.Compact(ids)); distinct != n || n != len(b.catalogIDs) {
		t.Fatalf("%d fast-tracks listed, %d distinct, the catalog has %d", n, distinct, len(b.catalogIDs))
	}
	if !slices.IsSortedFunc(before, func(x, y pricing.AdminFastTrack) int {
		return cmp.Or(cmp.Compare(x.Hub, y.Hub), cmp.Compare(catalog.Fold(x.Name), catalog.Fold(y.Name)))
	}) {
		t.Fatalf("not ordered by hub then name: %+v", before)
	}

	target := before[len(before)-1]
	_, err = b.svc.SetCapacity(ctx, target.ID, target.CatalogCapacityPerSlot+7, storetest.Audit("fast_track.capacity.set"))
	storetest.MustNoError(t, err, "SetCapacity")
	after, err := b.svc.FastTracks(ctx, skygate.LangEN)
	storetest.MustNoError(t, err, "FastTracks")
	for i, ft := range after {
		want := before[i]
		if ft.ID == target.ID {
			want.CapacityPerSlot, want.Overridden = target.CatalogCapacityPerSlot+7, true
		}
		if ft != want {
			t.Fatalf("after the override: %+v, want %+v", ft, want)
		}
		if one, err := b.svc.Capacity(ctx, ft.ID); err != nil || one.CapacityPerSlot != ft.CapacityPerSlot || one.Overridden != ft.Overridden {
			t.Fatalf("Capacity(%s) = %+v, %v; the list says %+v", ft.ID, one, err, ft)
		}
	}

	ru, err := b.svc.FastTracks(ctx, skygate.LangRU)
	storetest.MustNoError(t, err, "FastTracks in Russian")
	if len(ru) != len(after) {
		t.Fatalf("%d fast-tracks in Russian, %d in English", len(ru), len(after))
	}
	localized := false
	for _, ft := range ru {
		i := slices.IndexFunc(after, func(en pricing.AdminFastTrack) bool { return en.ID == ft.ID })
		localized = localized || (i >= 0 && after[i].Name != ft.Name)
	}
	if !localized {
		t.Fatal("no name differs in Russian")
	}
}
