package catalog

import (
	"time"

	"github.com/skygate/skygate"
)

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

// FastTrackNotice returns the fast-track's policy.booking_before_hours: how long
// before its service day starts a booking must be made. ok is false for an unknown id,
// before Open, or when the policy sets none.
func (s *Service) FastTrackNotice(id string) (notice time.Duration, ok bool) {
	c := s.Current()
	if c == nil {
		return 0, false
	}
	ref, ok := c.fastTracks[id]
	if !ok || ref.rec.Policy.BookingBeforeHours == "" {
		return 0, false
	}
	d, err := ParseISODuration(ref.rec.Policy.BookingBeforeHours) // validated on import
	return d, err == nil
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
	return ref.zone, ref.zone != nil
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
