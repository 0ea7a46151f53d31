package booking

import "time"

// scheduledLayout is the form of skygate.Flight.ScheduledAt: a local date and time at
// the hub, to the minute.
const scheduledLayout = "2006-01-02T15:04"

// scheduledInstant returns the instant of v, a scheduledLayout local time in loc; ok
// is false when v is malformed or names a local time that does not exist in loc (a
// clock skipped forward). Of a local time that occurs twice, it is the one time.Date
// gives.
func scheduledInstant(v string, loc *time.Location) (at time.Time, ok bool) {
	wall, err := time.Parse(scheduledLayout, v)
	if err != nil || len(v) != len(scheduledLayout) {
		return time.Time{}, false
	}
	at = time.Date(wall.Year(), wall.Month(), wall.Day(), wall.Hour(), wall.Minute(), 0, 0, loc)
	local := at.In(loc)
	return at, local.Hour() == wall.Hour() && local.Minute() == wall.Minute() && local.Day() == wall.Day()
}
