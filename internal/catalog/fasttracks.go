package catalog

import (
	"sync"
	"time"

	"github.com/skygate/skygate"
)

// zones caches time.LoadLocation by name: it reads and parses a zoneinfo file per
// call, and the worker asks for a hub's zone for every booking it issues. The names
// come from validated catalogs, so the cache holds a few hundred entries at most.
var zones sync.Map // name → *time.Location

func loadZone(name string) (*time.Location, error) {
	if loc, ok := zones.Load(name); ok {
		return loc.(*time.Location), nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, err
	}
	zones.Store(name, loc)
	return loc, nil
}

// FastTrackInfo returns the fast-track's required_booking_info and whether it is
// active; ok is false for an unknown id or before Open. Booking validation uses it.
func (s *Service) FastTrackInfo(id string) (requiredBookingInfo []string, active bool, ok bool) {
	c := s.Current()
	if c == nil {
		return nil, false, false
	}
	ref, ok := c.fastTracks[id]
	if !ok {
		return nil, false, false
	}
	info := make([]string, len(ref.rec.RequiredBookingInfo))
	for i, v := range ref.rec.RequiredBookingInfo {
		info[i] = string(v)
	}
	return info, ref.rec.IsActive, true
}

// FastTrackZone returns the time zone of the fast-track's hub, in which a booking's
// service_date is a calendar day.
func (s *Service) FastTrackZone(id string) (*time.Location, bool) {
	c := s.Current()
	if c == nil {
		return nil, false
	}
	ref, ok := c.fastTracks[id]
	if !ok {
		return nil, false
	}
	loc, err := loadZone(ref.hub.Timezone)
	if err != nil {
		return nil, false
	}
	return loc, true
}

// LocalizedFastTrack returns the fast-track in the response form in lang, or
// CodeNotFound (also before Open).
func (s *Service) LocalizedFastTrack(lang, id string) (*skygate.FastTrack, error) {
	c := s.Current()
	if c == nil {
		return nil, skygate.Errorf(skygate.CodeNotFound, "no fast-track with id %q", id)
	}
	ft, err := c.LocalizedFastTrack(lang, id)
	if err != nil {
		return nil, err
	}
	return &ft, nil
}
