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

// FastTrackCapacity returns the fast-track's capacity_per_slot, as the catalog gives it
// (an admin's override lives in the store); ok is false for an unknown id or before
// Open.
func (s *Service) FastTrackCapacity(id string) (capacity int, ok bool) {
	ref, ok := s.fastTrack(id)
	if !ok {
		return 0, false
	}
	return ref.rec.CapacityPerSlot, true
}

// FastTrackOpenHours returns the fast-track's opening intervals on a weekday, in
// minutes after local midnight ([start, end), ascending; none when it is closed); ok
// is false for an unknown id or before Open.
func (s *Service) FastTrackOpenHours(id string, day time.Weekday) (intervals [][2]int, ok bool) {
	ref, ok := s.fastTrack(id)
	if !ok {
		return nil, false
	}
	n := int(day) // business hours number Monday 1 … Sunday 7
	if n == 0 {
		n = 7
	}
	for _, h := range ref.rec.BusinessHours {
		if h.Day != n {
			continue
		}
		open, err := ParseHours(h.Times)
		if err != nil { // validated on load
			return nil, true
		}
		for _, in := range open {
			intervals = append(intervals, [2]int{in.Start, in.End})
		}
	}
	return intervals, true
}

// FastTrackCancellation returns the fast-track's cancellation policy, largest
// hours_before first (shared: do not modify); ok is false for an unknown id or before
// Open.
func (s *Service) FastTrackCancellation(id string) (rules []skygate.CancellationRule, ok bool) {
	ref, ok := s.fastTrack(id)
	if !ok {
		return nil, false
	}
	return ref.rec.Policy.Cancellation, true
}
