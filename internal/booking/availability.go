package booking

import (
	"context"
	"fmt"
	"time"

	"github.com/skygate/skygate"
)

// Availability answers, for a fast-track and a local date at its hub, how many places
// each of its one-hour slots of that day has left: one slot per local hour that
// overlaps the fast-track's opening hours that weekday, an hour the clocks skip left
// out and an hour they repeat listed once (the slot a booking of that local time
// takes). Capacity is the admin's override or the catalog's. An unknown fast-track is
// CodeNotFound; a date not of the form YYYY-MM-DD, before yesterday or more than
// MaxServiceDaysAhead days after today at the hub, is CodeBadRequest. Prices are the
// caller's to add: they belong to the account, availability to the airport.
func (s *Service) Availability(ctx context.Context, fastTrackID, date string) (*skygate.Availability, error) {
	if _, _, ok := s.fastTracks.FastTrackInfo(fastTrackID); !ok {
		return nil, skygate.Errorf(skygate.CodeNotFound, "no fast-track with id %q", fastTrackID)
	}
	loc := s.zone(fastTrackID)
	day, err := s.availabilityDate(date, loc)
	if err != nil {
		return nil, err
	}
	capacity, _ := s.fastTracks.FastTrackCapacity(fastTrackID)
	if override, ok, err := s.slots.FastTrackCapacity(ctx, fastTrackID); err != nil {
		return nil, err
	} else if ok {
		capacity = override
	}
	out := &skygate.Availability{FastTrackID: fastTrackID, Date: date, TimeZone: loc.String(), Slots: []skygate.AvailabilitySlot{}}
	open, _ := s.fastTracks.FastTrackOpenHours(fastTrackID, day.Weekday())
	for h := range 24 {
		start := time.Date(day.Year(), day.Month(), day.Day(), h, 0, 0, 0, loc)
		if start.In(loc).Hour() != h || !overlaps(open, h*60, h*60+60) {
			continue // skipped by the clocks, or closed
		}
		out.Slots = append(out.Slots, skygate.AvailabilitySlot{Start: clock(h * 60), End: clock(h*60 + 60),
			Capacity: capacity, Remaining: capacity, At: start.UTC()})
	}
	if len(out.Slots) == 0 {
		return out, nil
	}
	used, err := s.slots.SlotUsage(ctx, fastTrackID, out.Slots[0].At, out.Slots[len(out.Slots)-1].At.Add(time.Hour))
	if err != nil {
		return nil, err
	}
	for i := range out.Slots {
		out.Slots[i].Remaining = max(0, capacity-used[out.Slots[i].At])
	}
	return out, nil
}

// availabilityDate parses the local date of an availability query at a hub in loc.
func (s *Service) availabilityDate(date string, loc *time.Location) (time.Time, error) {
	if date == "" {
		return time.Time{}, skygate.BadParameter("date", "is required: a local date at the airport, YYYY-MM-DD")
	}
	day, ok := parseDate(date)
	if !ok {
		return time.Time{}, skygate.BadParameter("date", "must be a date in the form YYYY-MM-DD")
	}
	local := s.now().In(loc)
	today := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, time.UTC)
	if day.Before(today.AddDate(0, 0, -1)) || day.After(today.AddDate(0, 0, MaxServiceDaysAhead)) {
		return time.Time{}, skygate.BadParameter("date", fmt.Sprintf("must be from yesterday to %d days ahead at the airport (today is %s there)",
			MaxServiceDaysAhead, today.Format(time.DateOnly)))
	}
	return day, nil
}

// overlaps reports whether [from, to) overlaps one of the intervals.
func overlaps(intervals [][2]int, from, to int) bool {
	for _, in := range intervals {
		if in[0] < to && in[1] > from {
			return true
		}
	}
	return false
}
