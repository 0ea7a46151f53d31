package catalog

import (
	"cmp"
	"slices"

	"github.com/skygate/skygate"
)

func localizeHub(h *skygate.HubRecord, lang string) skygate.Hub {
	return skygate.Hub{
		ID:       h.ID,
		Location: localizeLocation(h.Location, lang),
		Timezone: h.Timezone,
		Kind:     h.Kind,
		Name:     h.Name.In(lang),
		Meta:     h.Meta,
	}
}

func localizeLocation(l skygate.LocationRecord, lang string) skygate.Location {
	return skygate.Location{
		City:        l.City.In(lang),
		Country:     l.Country,
		Continent:   l.Continent,
		Coordinates: l.Coordinates,
	}
}

func localizeLounge(l *skygate.LoungeRecord, hub *skygate.HubRecord, amenities map[string]*skygate.AmenityRecord, lang string) skygate.Lounge {
	h := localizeHub(hub, lang)
	out := skygate.Lounge{
		ID:                 l.ID,
		Name:               l.Name.In(lang),
		Code:               l.Code,
		Terminal:           l.Terminal,
		Description:        l.Description.In(lang),
		Location:           h.Location,
		Hub:                h,
		Landside:           l.Landside,
		AirsideZone:        l.AirsideZone,
		IsArrivalAvailable: l.IsArrivalAvailable,
		Amenities:          make([]skygate.Amenity, 0, len(l.Amenities)),
		BusinessHours:      l.BusinessHours,
		IsActive:           l.IsActive,
		IsPremium:          l.IsPremium,
		Policy: skygate.LoungePolicy{
			Age:  skygate.AgePolicy{MinAge: l.Policy.Age.MinAge, Notes: l.Policy.Age.Notes.In(lang)},
			Stay: l.Policy.Stay,
		},
		RequiredBookingInfo: l.RequiredBookingInfo,
		Images:              make([]skygate.Image, 0, len(l.Images)),
		DirectionInfo:       l.DirectionInfo.In(lang),
	}
	for _, a := range l.Amenities {
		out.Amenities = append(out.Amenities, skygate.Amenity{ID: a.ID, Name: amenities[a.ID].Name.In(lang), IsFree: a.IsFree})
	}
	for _, im := range l.Images {
		out.Images = append(out.Images, skygate.Image{URL: im.URL, Sort: im.Sort, Title: im.Title.In(lang)})
	}
	slices.SortStableFunc(out.Images, func(a, b skygate.Image) int { return cmp.Compare(a.Sort, b.Sort) })
	return out
}

func localizeFastTrack(f *skygate.FastTrackRecord, hub *skygate.HubRecord, lang string) skygate.FastTrack {
	h := localizeHub(hub, lang)
	policy := f.Policy
	if policy.Cancellation == nil {
		policy.Cancellation = []skygate.CancellationRule{} // never null in the response form
	}
	return skygate.FastTrack{
		ID:                  f.ID,
		Name:                f.Name.In(lang),
		Terminal:            f.Terminal,
		Location:            h.Location,
		Hub:                 h,
		AirsideZone:         f.AirsideZone,
		BusinessHours:       f.BusinessHours,
		IsActive:            f.IsActive,
		RequiredBookingInfo: f.RequiredBookingInfo,
		Policy:              policy,
		CapacityPerSlot:     f.CapacityPerSlot,
	}
}

// LocalizedFastTrack returns the fast-track with that id in lang, for Go callers such as
// booking validation that need its fields (required_booking_info, is_active, the hub's
// time zone, booking_before_hours) rather than JSON. Unknown ids are CodeNotFound. The
// slices of the result are shared and must not be modified.
func (c *Catalog) LocalizedFastTrack(lang, id string) (skygate.FastTrack, error) {
	ref, ok := c.fastTracks[id]
	if !ok {
		return skygate.FastTrack{}, skygate.Errorf(skygate.CodeNotFound, "no fast-track with id %q", id)
	}
	return localizeFastTrack(ref.rec, ref.hub, skygate.Language(lang)), nil
}
