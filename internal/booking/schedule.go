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
// notice (naming the earliest bookable local time) and a time outside its opening
// hours of that weekday (naming them).
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
		v.fail(field, fmt.Sprintf("must be at least %gh ahead: the earliest bookable time is %s (%s)",
			notice.Hours(), first.In(loc).Format(ScheduledLayout), loc))
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
