package booking_test

import (
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/storetest"
)

// TestAvailability lists ftLondon's slots of a day (3 places each) as bookings take
// and give back places.
func TestAvailability(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	a, err := b.svc.Availability(ctx, ftLondon, "2025-06-04") // a Wednesday, 06:00-21:00
	storetest.MustNoError(t, err, "Availability")
	if a.TimeZone != "Europe/London" || a.Date != "2025-06-04" || len(a.Slots) != 15 ||
		a.Slots[0].Start != "06:00" || a.Slots[14].End != "21:00" {
		t.Fatalf("availability = %+v", a)
	}
	if s := a.Slots[3]; s != (skygate.AvailabilitySlot{Start: "09:00", End: "10:00", Capacity: 3, Remaining: 3,
		At: time.Date(2025, 6, 4, 8, 0, 0, 0, time.UTC)}) {
		t.Fatalf("09:00 slot = %+v", s)
	}
	two := func(r map[string]any) {
		r["passengers"] = append(r["passengers"].([]any), map[string]any{"first_name": "Bo", "last_name": "L"})
	}
	booked := b.MustCreate(t, scheduled(ftLondon, "2025-06-04T09:45", two))
	remaining := func() int {
		a, err := b.svc.Availability(ctx, ftLondon, "2025-06-04")
		storetest.MustNoError(t, err, "Availability")
		return a.Slots[3].Remaining
	}
	if got := remaining(); got != 1 {
		t.Fatalf("remaining after a booking of 2 = %d, want 1", got)
	}
	_, err = b.svc.Cancel(ctx, b.account, booked.ID)
	storetest.MustNoError(t, err, "Cancel")
	if got := remaining(); got != 3 {
		t.Fatalf("remaining after the cancel = %d, want 3", got)
	}
}

// TestAvailabilityDays: closed days have no slots; summer time skips an hour in
// spring and repeats one in autumn, which is listed once.
func TestAvailabilityDays(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tests := []struct {
		date  string
		slots int
		first string
	}{
		{"2025-06-03", 0, ""},       // a Tuesday: closed
		{"2025-06-08", 24, "00:00"}, // a Sunday: all day
		{"2026-03-29", 23, "00:00"}, // 01:00-02:00 does not exist
		{"2025-10-26", 24, "00:00"}, // 01:00-02:00 happens twice
	}
	for _, tt := range tests {
		a, err := b.svc.Availability(t.Context(), ftLondon, tt.date)
		storetest.MustNoError(t, err, "Availability "+tt.date)
		if len(a.Slots) != tt.slots || (tt.slots > 0 && a.Slots[0].Start != tt.first) {
			t.Errorf("%s: %d slots %+v, want %d", tt.date, len(a.Slots), a.Slots, tt.slots)
		}
		seen := map[string]bool{}
		for _, s := range a.Slots {
			if seen[s.Start] || s.Start == "01:00" && tt.date == "2026-03-29" {
				t.Errorf("%s: slot %s listed wrongly", tt.date, s.Start)
			}
			seen[s.Start] = true
		}
	}
}

// TestAvailabilityErrors: unknown fast-tracks are not found, bad dates bad requests.
func TestAvailabilityErrors(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, err := b.svc.Availability(t.Context(), skygate.NewID(), "2025-06-04")
	storetest.WantCode(t, err, skygate.CodeNotFound)
	// At Start it is 2025-06-01 21:00 in London.
	for _, date := range []string{"", "2025-6-4", "2025-06-04T00:00", "2025-05-30", "2026-06-03"} {
		_, err := b.svc.Availability(t.Context(), ftLondon, date)
		storetest.WantCode(t, err, skygate.CodeBadRequest)
	}
	for _, date := range []string{"2025-05-31", "2026-06-02"} {
		_, err := b.svc.Availability(t.Context(), ftLondon, date)
		storetest.MustNoError(t, err, "Availability "+date)
	}
}
