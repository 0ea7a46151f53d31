package pricing

import (
	"cmp"
	"context"
	"slices"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/catalog"
)

// AdminFastTrack is a fast-track of the current catalog as employees list it to set
// prices and capacities: its names and its capacity per slot as Capacity gives it.
// Employees' tokens cannot read the partner catalog, so this is their only list.
type AdminFastTrack struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Hub      string `json:"hub"` // the hub's IATA code
	Terminal string `json:"terminal"`
	// CapacityPerSlot is the capacity in force: the admin's when Overridden, else the
	// catalog record's.
	CapacityPerSlot        int  `json:"capacity_per_slot"`
	CatalogCapacityPerSlot int  `json:"catalog_capacity_per_slot"`
	Overridden             bool `json:"overridden"`
}

// FastTracks lists every fast-track of the current catalog, names in lang, ordered by
// hub IATA code, then name, then id. The list is whole (the catalog holds tens of
// fast-tracks, not thousands) and never nil; it is empty before the catalog is open.
// Admin capacities of fast-tracks no longer in the catalog are not listed.
func (s *Service) FastTracks(ctx context.Context, lang string) ([]AdminFastTrack, error) {
	overrides, err := s.store.FastTrackCapacities(ctx)
	if err != nil {
		return nil, err
	}
	ids := s.catalog.FastTrackIDs()
	out := make([]AdminFastTrack, 0, len(ids))
	for _, id := range ids {
		ft, err := s.catalog.LocalizedFastTrack(lang, id)
		if skygate.IsCode(err, skygate.CodeNotFound) {
			continue // the catalog changed between the two calls
		}
		if err != nil {
			return nil, err
		}
		n, overridden := overrides[id]
		item := AdminFastTrack{
			ID: id, Name: ft.Name, Hub: ft.Hub.Meta.IATA, Terminal: ft.Terminal,
			CapacityPerSlot: ft.CapacityPerSlot, CatalogCapacityPerSlot: ft.CapacityPerSlot, Overridden: overridden,
		}
		if overridden {
			item.CapacityPerSlot = n
		}
		out = append(out, item)
	}
	slices.SortFunc(out, func(a, b AdminFastTrack) int {
		return cmp.Or(cmp.Compare(a.Hub, b.Hub), cmp.Compare(catalog.Fold(a.Name), catalog.Fold(b.Name)), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}
