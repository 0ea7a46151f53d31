package catalog

import (
	"time"

	"github.com/skygate/skygate"
)

// fastTrack returns the fast-track of the current catalog; ok is false for an unknown
// id or before Open.
func (s *Service) fastTrack(id string) (ref fastTrackRef, ok bool) {
	if c := s.Current(); c != nil {
		ref, ok = c.fastTracks[id]
	}
	return ref, ok
}

// FastTrackInfo returns the fast-track's required_booking_info and whether it is
// active; ok is false for an unknown id or before Open. Booking validation uses it.
func (s *Service) FastTrackInfo(id string) (requiredBookingInfo []string, active bool, ok bool) {
	ref, ok := s.fastTrack(id)
	if !ok {
		return nil, false, false
	}
	info := make([]string, len(ref.rec.RequiredBookingInfo))
	for i, v := range ref.rec.RequiredBookingInfo {
		info[i] = string(v)
	}
	return info, ref.rec.IsActive, true
}

// FastTrackNotice returns the fast-track's policy.booking_before_hours: how long
// before its service day starts a booking must be made. ok is false for an unknown id,
// before Open, or when the policy sets none.
func (s *Service) FastTrackNotice(id string) (notice time.Duration, ok bool) {
	ref, _ := s.fastTrack(id)
	return ref.notice, ref.notice > 0
}

// FastTrackZone returns the time zone of the fast-track's hub, in which a booking's
// service_date is a calendar day.
func (s *Service) FastTrackZone(id string) (*time.Location, bool) {
	ref, _ := s.fastTrack(id)
	return ref.zone, ref.zone != nil
}

// LocalizedFastTrack returns the fast-track in the response form in lang, or
// CodeNotFound (also before Open).
func (s *Service) LocalizedFastTrack(lang, id string) (*skygate.FastTrack, error) {
	ref, ok := s.fastTrack(id)
	if !ok {
		return nil, skygate.Errorf(skygate.CodeNotFound, "no fast-track with id %q", id)
	}
	ft := localizeFastTrack(ref.rec, ref.hub, skygate.Language(lang))
	return &ft, nil
}
