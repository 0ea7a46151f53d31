package booking

import (
	"fmt"
	"strings"
	"time"

	"github.com/skygate/skygate"
)

// ScheduledLayout is the form of skygate.Flight.ScheduledAt: a local date and time at
// the hub, to the minute.
const ScheduledLayout = "2006-01-02T15:04"

// parseScheduled parses v in ScheduledLayout as a wall-clock time (in UTC, standing
// for the hub's zone); ok is false unless it is exactly of that form.
func parseScheduled(v string) (wall time.Time, ok bool) {
	t, err := time.Parse(ScheduledLayout, v)
	return t, err == nil && len(v) == len(ScheduledLayout)
}

// scheduledInstant returns the instant of v, a ScheduledLayout local time in loc; ok
// is false when v is malformed or names a local time that does not exist in loc (a
// clock skipped forward). Of a local time that occurs twice, it is the one time.Date
// gives, as for every caller.
func scheduledInstant(v string, loc *time.Location) (at time.Time, ok bool) {
	wall, ok := parseScheduled(v)
	if !ok {
		return time.Time{}, false
	}
	at = time.Date(wall.Year(), wall.Month(), wall.Day(), wall.Hour(), wall.Minute(), 0, 0, loc)
	local := at.In(loc)
	return at, local.Hour() == wall.Hour() && local.Minute() == wall.Minute() && local.Day() == wall.Day()
}

// SlotStart returns the start of the one-hour capacity slot that contains the instant
// at: the whole local hour in loc that at falls in, as an instant. Every caller, the
// booking and the availability, derives slots through it.
func SlotStart(at time.Time, loc *time.Location) time.Time {
	local := at.In(loc)
	return at.Add(-time.Duration(local.Minute())*time.Minute - time.Duration(local.Second())*time.Second -
		time.Duration(local.Nanosecond())).UTC()
}

// schedule checks the flight's scheduled time of a booking whose fast-track is known
// (zone loc), with now the time of the request, and on success gives b its slot. It
// reports every problem on flight.scheduled_at: a malformed or non-existent local
// time, a date other than the service date, a time sooner than the fast-track's
// notice (naming the earliest bookable local time, which is also within its opening
// hours: earliestOpen) and a time outside its opening hours of that weekday (naming
// them).
func (s *Service) schedule(v *validation, b *skygate.Booking, loc *time.Location, now time.Time) {
	const field = "flight.scheduled_at"
	value := b.Flight.ScheduledAt
	if _, ok := parseScheduled(value); !ok {
		v.fail(field, "must be a local date and time at the airport in the form YYYY-MM-DDTHH:MM")
		return
	}
	at, ok := scheduledInstant(value, loc)
	if !ok {
		v.fail(field, fmt.Sprintf("is not a time that exists in %s (the clocks skip it)", loc))
		return
	}
	if value[:len(time.DateOnly)] != b.ServiceDate {
		v.fail(field, "must be on the service_date")
		return
	}
	notice, _ := s.fastTracks.FastTrackNotice(b.FastTrackID)
	if earliest := now.Add(notice); at.Before(earliest) {
		// Round up to the minute: the earliest time a partner can name.
		first := earliest.Truncate(time.Minute)
		if first.Before(earliest) {
			first = first.Add(time.Minute)
		}
		hours := func(day time.Weekday) ([][2]int, bool) { return s.fastTracks.FastTrackOpenHours(b.FastTrackID, day) }
		if open, ok := earliestOpen(first, loc, hours); ok {
			v.fail(field, fmt.Sprintf("must be at least %gh ahead: the earliest bookable time is %s (%s)",
				notice.Hours(), open.In(loc).Format(ScheduledLayout), loc))
		} else {
			v.fail(field, fmt.Sprintf("must be at least %gh ahead, from %s (%s), and the fast-track is not open in the %d days from then",
				notice.Hours(), first.In(loc).Format(ScheduledLayout), loc, openSearchDays))
		}
		return
	}
	local := at.In(loc)
	if open, ok := s.fastTracks.FastTrackOpenHours(b.FastTrackID, local.Weekday()); ok {
		minute := local.Hour()*60 + local.Minute()
		if !within(open, minute) {
			v.fail(field, openingHours(open, local.Weekday()))
			return
		}
	}
	capacity, _ := s.fastTracks.FastTrackCapacity(b.FastTrackID)
	b.Slot = &skygate.BookingSlot{Start: SlotStart(at, loc), Places: skygate.Places(b.Passengers), Capacity: capacity}
}

// openSearchDays bounds earliestOpen's search: the days after the first one it looks at.
const openSearchDays = 14

// earliestOpen returns the first whole-minute instant from from on (from is a whole
// minute) whose local time in loc exists and falls within the opening hours that
// hours gives of its weekday, looking at from's local day and the openSearchDays days
// after it; ok is false when there is none. An unknown fast-track (hours' ok false)
// has no hours to keep to: from itself.
func earliestOpen(from time.Time, loc *time.Location, hours func(time.Weekday) ([][2]int, bool)) (at time.Time, ok bool) {
	start := from.In(loc)
	for d := range openSearchDays + 1 {
		day := time.Date(start.Year(), start.Month(), start.Day()+d, 0, 0, 0, 0, time.UTC) // the wall-clock date
		open, known := hours(day.Weekday())
		if !known {
			return from, true
		}
		for _, in := range open {
			for m := in[0]; m < in[1]; m++ {
				t := time.Date(day.Year(), day.Month(), day.Day(), m/60, m%60, 0, 0, loc)
				local := t.In(loc)
				if local.Day() != day.Day() || local.Hour()*60+local.Minute() != m {
					continue // the clocks skip this minute
				}
				if !t.Before(from) {
					return t, true
				}
				if d == 0 {
					// Jump to from's minute rather than walking the day to it.
					if fm := start.Hour()*60 + start.Minute(); fm > m && fm < in[1] {
						m = fm - 1
					}
				}
			}
		}
	}
	return time.Time{}, false
}

// within reports whether minute falls in one of the intervals.
func within(intervals [][2]int, minute int) bool {
	for _, in := range intervals {
		if minute >= in[0] && minute < in[1] {
			return true
		}
	}
	return false
}

// openingHours is the message of a scheduled time outside the opening hours of day.
func openingHours(intervals [][2]int, day time.Weekday) string {
	if len(intervals) == 0 {
		return fmt.Sprintf("must be when the fast-track is open: it is closed on %ss", day)
	}
	parts := make([]string, len(intervals))
	for i, in := range intervals {
		parts[i] = clock(in[0]) + "-" + clock(in[1])
	}
	return fmt.Sprintf("must be when the fast-track is open: on %ss it opens %s", day, strings.Join(parts, ", "))
}

// clock formats minutes after local midnight as HH:MM (24:00 for the end of the day).
func clock(minutes int) string { return fmt.Sprintf("%02d:%02d", minutes/60, minutes%60) }

// slotFull is the store's CodeSlotFull of b (cause) told in the hub's local time.
func (s *Service) slotFull(b *skygate.Booking, cause error) error {
	loc := s.zone(b.FastTrackID)
	start := b.Slot.Start.In(loc)
	return &skygate.Error{Code: skygate.CodeSlotFull, Err: cause, Message: fmt.Sprintf(
		"the slot %s-%s on %s (%s) has fewer than %d places left; GET /v2/catalog/fast-tracks/%s/availability?date=%s lists the free ones",
		start.Format("15:04"), start.Add(time.Hour).Format("15:04"), start.Format(time.DateOnly), loc, b.Slot.Places, b.FastTrackID, b.ServiceDate)}
}
