package booking_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/booking"
	"github.com/skygate/skygate/internal/storetest"
)

// scheduled returns a request for fast-track id on the date of at, with the flight
// scheduled at at (YYYY-MM-DDTHH:MM); mods change it.
func scheduled(id, at string, mods ...func(r map[string]any)) map[string]any {
	r := request(mods...)
	r["fast_track_id"], r["service_date"] = id, at[:10]
	r["flight"].(map[string]any)["scheduled_at"] = at
	return r
}

// TestCreateScheduleValidation: at Start it is 2025-06-01 21:00 in London, so with 24
// hours' notice the earliest time at ftLondon is 2025-06-02 21:00 — when it has just
// closed (06:00-21:00; closed on Tuesdays, 3 June).
func TestCreateScheduleValidation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tests := []struct {
		name    string
		r       map[string]any
		field   string
		message string // a part of the field's message
	}{
		{"malformed", scheduled(ftLondon, "2025-06-04 09:15"), "flight.scheduled_at", "YYYY-MM-DDTHH:MM"},
		{"seconds", scheduled(ftLondon, "2025-06-04T09:15:00"), "flight.scheduled_at", "YYYY-MM-DDTHH:MM"},
		{"offset", scheduled(ftLondon, "2025-06-04T09:15+01:00"), "flight.scheduled_at", "YYYY-MM-DDTHH:MM"},
		{"not the service date", scheduled(ftLondon, "2025-06-05T09:15", func(r map[string]any) {}), "flight.scheduled_at", "service_date"},
		// 24 hours from now is Monday 21:00, when it closes; Tuesday it is closed: the
		// earliest time it is both far enough ahead and open is Wednesday 06:00.
		{"lead time", scheduled(ftLondon, "2025-06-02T20:59"), "flight.scheduled_at",
			"must be at least 24h ahead: the earliest bookable time is 2025-06-04T06:00 (Europe/London)"},
		{"lead time at a fixed zone", scheduled(ftNotice, "2025-06-03T00:59"), "flight.scheduled_at",
			"the earliest bookable time is 2025-06-03T01:00 (UTC+5)"},
		{"closed day", scheduled(ftLondon, "2025-06-03T10:00"), "flight.scheduled_at", "closed on Tuesdays"},
		{"before opening", scheduled(ftLondon, "2025-06-04T05:59"), "flight.scheduled_at", "on Wednesdays it opens 06:00-21:00"},
		{"at closing", scheduled(ftLondon, "2025-06-04T21:00"), "flight.scheduled_at", "on Wednesdays it opens 06:00-21:00"},
		// The clocks go from 01:00 to 02:00 on 29 March 2026 in London.
		{"skipped by summer time", scheduled(ftLondon, "2026-03-29T01:30"), "flight.scheduled_at", "not a time that exists in Europe/London"},
		{"passenger type", request(func(r map[string]any) { passenger(r)["type"] = "senior" }), "passengers[0].type", "adult, child, infant"},
		{"passenger type case", request(func(r map[string]any) { passenger(r)["type"] = "Adult" }), "passengers[0].type", "adult, child, infant"},
	}
	// The date of "not the service date" differs from its service_date.
	tests[3].r["service_date"] = "2025-06-04"
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := b.create(t, b.account, "c", "key-"+storetest.NewID(), mustJSON(t, tt.r))
			storetest.WantCode(t, err, skygate.CodeValidation)
			e := err.(*skygate.Error)
			if len(e.Fields) != 1 || e.Fields[0].Field != tt.field || !strings.Contains(e.Fields[0].Message, tt.message) {
				t.Fatalf("fields = %+v, want %s saying %q", e.Fields, tt.field, tt.message)
			}
		})
	}
}

// TestCreateScheduled: a booking with a scheduled time holds places in the local hour
// that contains it (infants take none), resolves passenger types, and its pass is
// valid around the flight.
func TestCreateScheduled(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tests := []struct {
		name      string
		r         map[string]any
		slot      time.Time
		places    int
		types     []skygate.PassengerType
		from, til time.Time
	}{
		{"departure in summer time", scheduled(ftLondon, "2025-06-04T09:15", func(r map[string]any) {
			r["passengers"] = []any{
				map[string]any{"first_name": "Ada", "last_name": "L"},
				map[string]any{"first_name": "Bo", "last_name": "L", "type": "child"},
				map[string]any{"first_name": "Cy", "last_name": "L", "type": "infant"},
			}
		}), time.Date(2025, 6, 4, 8, 0, 0, 0, time.UTC), 2,
			[]skygate.PassengerType{skygate.PassengerAdult, skygate.PassengerChild, skygate.PassengerInfant},
			time.Date(2025, 6, 4, 4, 15, 0, 0, time.UTC), time.Date(2025, 6, 4, 10, 15, 0, 0, time.UTC)},
		{"arrival of an infant", scheduled(ftLondon, "2025-12-03T20:59", func(r map[string]any) {
			r["flight"].(map[string]any)["direction"] = "arrival"
			passenger(r)["type"] = "infant"
		}), time.Date(2025, 12, 3, 20, 0, 0, 0, time.UTC), 0, []skygate.PassengerType{skygate.PassengerInfant},
			time.Date(2025, 12, 3, 19, 59, 0, 0, time.UTC), time.Date(2025, 12, 4, 2, 59, 0, 0, time.UTC)},
		// The notice counts back from the scheduled time, not from the day's start.
		{"earliest time at a fixed zone", scheduled(ftNotice, "2025-06-03T01:00"),
			time.Date(2025, 6, 2, 20, 0, 0, 0, time.UTC), 1, []skygate.PassengerType{skygate.PassengerAdult},
			time.Date(2025, 6, 2, 16, 0, 0, 0, time.UTC), time.Date(2025, 6, 2, 22, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			created := b.MustCreate(t, tt.r)
			capacity, _ := fastTracks{}.FastTrackCapacity(created.FastTrackID)
			want := &skygate.BookingSlot{Start: tt.slot, Places: tt.places, Capacity: capacity}
			if !reflect.DeepEqual(created.Slot, want) {
				t.Errorf("slot = %+v, want %+v", created.Slot, want)
			}
			var types []skygate.PassengerType
			for _, p := range created.Passengers {
				types = append(types, p.Type)
			}
			if !reflect.DeepEqual(types, tt.types) {
				t.Errorf("types = %v, want %v", types, tt.types)
			}
			issued, err := b.svc.Simulate(t.Context(), b.account, created.ID, "issue")
			storetest.MustNoError(t, err, "issue")
			if p := issued.Pass; !p.ValidFrom.Equal(tt.from) || !p.ValidUntil.Equal(tt.til) {
				t.Errorf("pass valid %s to %s, want %s to %s", p.ValidFrom, p.ValidUntil, tt.from, tt.til)
			}
		})
	}
}

// TestCreateUnscheduled: without a scheduled time a booking holds no slot and its
// pass covers the service day, as before scheduled times existed.
func TestCreateUnscheduled(t *testing.T) {
	t.Parallel()
	b := setup(t)
	r := request()
	r["fast_track_id"], r["service_date"] = ftLondon, "2025-06-03" // closed that day: hours need a time
	created := b.MustCreate(t, r)
	if created.Slot != nil {
		t.Fatalf("slot = %+v, want none", created.Slot)
	}
	issued, err := b.svc.Simulate(t.Context(), b.account, created.ID, "issue")
	storetest.MustNoError(t, err, "issue")
	day := time.Date(2025, 6, 3, 0, 0, 0, 0, london)
	if p := issued.Pass; !p.ValidFrom.Equal(day) || !p.ValidUntil.Equal(day.AddDate(0, 0, 1).Add(6*time.Hour)) {
		t.Errorf("pass valid %s to %s", p.ValidFrom, p.ValidUntil)
	}
}

// TestCreateSlotFull: ftLondon's slots hold 3 places; a booking that does not fit is
// SlotFull, told in local time, and infants still fit.
func TestCreateSlotFull(t *testing.T) {
	t.Parallel()
	b := setup(t)
	three := func(r map[string]any) {
		r["passengers"] = []any{}
		for range 3 {
			r["passengers"] = append(r["passengers"].([]any), map[string]any{"first_name": "A", "last_name": "B"})
		}
	}
	b.MustCreate(t, scheduled(ftLondon, "2025-06-04T09:00", three))
	_, _, err := b.create(t, b.other, "c", "full", mustJSON(t, scheduled(ftLondon, "2025-06-04T09:59")))
	storetest.WantCode(t, err, skygate.CodeSlotFull)
	if msg := skygate.ErrorMessage(err); !strings.Contains(msg, "09:00-10:00 on 2025-06-04 (Europe/London)") {
		t.Errorf("message %q does not name the local slot", msg)
	}
	b.MustCreate(t, scheduled(ftLondon, "2025-06-04T10:00")) // the next slot
	b.MustCreate(t, scheduled(ftLondon, "2025-06-04T09:30", func(r map[string]any) { passenger(r)["type"] = "infant" }))
}

// TestEarliestOpen: the lead-time message names the first whole minute from the
// earliest allowed time that is within the opening hours, up to 14 days ahead.
func TestEarliestOpen(t *testing.T) {
	t.Parallel()
	// London's hours in the fake catalog: 06:00-21:00, closed on Tuesdays, all day on
	// Sundays.
	londonHours := func(day time.Weekday) ([][2]int, bool) { return fastTracks{}.FastTrackOpenHours(ftLondon, day) }
	split := func(time.Weekday) ([][2]int, bool) { return [][2]int{{6 * 60, 10 * 60}, {14 * 60, 18 * 60}}, true }
	never := func(time.Weekday) ([][2]int, bool) { return nil, true }
	fridays := func(day time.Weekday) ([][2]int, bool) {
		if day == time.Friday {
			return [][2]int{{12 * 60, 13 * 60}}, true
		}
		return nil, true
	}
	unknown := func(time.Weekday) ([][2]int, bool) { return nil, false }
	// earlyRise opens 01:30-03:00: on 29 March 2026 London skips 01:00-02:00.
	earlyRise := func(time.Weekday) ([][2]int, bool) { return [][2]int{{90, 180}}, true }
	tests := []struct {
		name  string
		from  string // local in Europe/London
		hours func(time.Weekday) ([][2]int, bool)
		want  string // local; "" for none
	}{
		{"AlreadyOpen", "2025-06-02T09:15", londonHours, "2025-06-02T09:15"},
		{"BeforeOpening", "2025-06-02T05:10", londonHours, "2025-06-02T06:00"},
		{"AtClosingSkipsClosedDay", "2025-06-02T21:00", londonHours, "2025-06-04T06:00"},
		{"ClosedDay", "2025-06-03T10:00", londonHours, "2025-06-04T06:00"},
		{"LastMinute", "2025-06-02T20:59", londonHours, "2025-06-02T20:59"},
		{"SecondInterval", "2025-06-02T10:00", split, "2025-06-02T14:00"},
		{"InSecondInterval", "2025-06-02T15:30", split, "2025-06-02T15:30"},
		{"AfterBothIntervals", "2025-06-02T18:00", split, "2025-06-03T06:00"},
		{"NextWeek", "2025-06-06T13:00", fridays, "2025-06-13T12:00"},
		{"NeverOpen", "2025-06-02T09:00", never, ""},
		{"UnknownHours", "2025-06-02T23:30", unknown, "2025-06-02T23:30"},
		{"SkippedBySummerTime", "2026-03-29T00:30", earlyRise, "2026-03-29T02:00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			from, ok := booking.ScheduledInstant(tt.from, london)
			if !ok {
				t.Fatalf("bad from %s", tt.from)
			}
			got, ok := booking.EarliestOpen(from, london, tt.hours)
			if tt.want == "" {
				if ok {
					t.Fatalf("EarliestOpen(%s) = %s, want none", tt.from, got.In(london).Format(booking.ScheduledLayout))
				}
				return
			}
			if !ok || got.In(london).Format(booking.ScheduledLayout) != tt.want {
				t.Fatalf("EarliestOpen(%s) = %s (%v), want %s", tt.from, got.In(london).Format(booking.ScheduledLayout), ok, tt.want)
			}
		})
	}
}
