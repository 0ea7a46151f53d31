package skygate_test

import (
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// personalValues lists the personal data of fullBooking's passengers.
func personalValues(b *skygate.Booking) []string {
	var out []string
	for _, p := range b.Passengers {
		for _, v := range []string{p.DateOfBirth, p.PassportNumber, p.Nationality, p.Email, p.Phone} {
			if v != "" {
				out = append(out, v)
			}
		}
	}
	return out
}

// TestBookingEventsCarryNamesOnly: no event of any transition carries a passenger's
// personal data, and booking.status.changed keeps the names; the booking handed in is
// left whole.
func TestBookingEventsCarryNamesOnly(t *testing.T) {
	t.Parallel()
	b := fullBooking()
	secrets := personalValues(b)
	if len(secrets) != 6 {
		t.Fatalf("fullBooking has %d personal values: %v", len(secrets), secrets)
	}
	for _, from := range append([]skygate.BookingStatus{""}, skygate.BookingStatuses...) {
		for _, to := range skygate.BookingStatuses {
			var before *skygate.Booking
			if from != "" {
				before = b.Clone()
				before.Status = from
			}
			after := b.Clone()
			after.Status = to
			events, err := skygate.BookingEvents(before, after, after.UpdatedAt)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range events {
				for _, v := range secrets {
					if strings.Contains(string(e.Data), v) {
						t.Errorf("%s → %s: %s carries %q: %s", from, to, e.Type, v, e.Data)
					}
				}
				if e.Type == skygate.EventBookingStatusChanged && !strings.Contains(string(e.Data), `{"first_name":"Aziza","last_name":"Karimova","type":"adult"}`) {
					t.Errorf("%s → %s: names missing: %s", from, to, e.Data)
				}
			}
			if got := personalValues(after); len(got) != len(secrets) {
				t.Fatalf("BookingEvents changed the booking's passengers: %+v", after.Passengers)
			}
		}
	}
}

func TestPassengerNames(t *testing.T) {
	t.Parallel()
	b := fullBooking()
	names := skygate.PassengerNames(b.Passengers)
	want := []skygate.Passenger{{FirstName: "Aziza", LastName: "Karimova", Type: skygate.PassengerAdult},
		{FirstName: "Ada", LastName: "Lovelace", Type: skygate.PassengerChild}}
	if len(names) != 2 || names[0] != want[0] || names[1] != want[1] {
		t.Fatalf("PassengerNames = %+v", names)
	}
	if !b.Passengers[0].HasPersonalData() || !b.Passengers[1].HasPersonalData() || names[0].HasPersonalData() {
		t.Fatal("HasPersonalData disagrees with the fields")
	}
	if skygate.PassengerNames(nil) != nil || len(skygate.PassengerNames([]skygate.Passenger{})) != 0 {
		t.Fatal("PassengerNames of nil or empty")
	}
}

// TestPassengerDataCutoff: a booking's personal data goes once the retention has
// passed since the end of its service date, a UTC day.
func TestPassengerDataCutoff(t *testing.T) {
	t.Parallel()
	const day = 24 * time.Hour
	for _, tc := range []struct {
		now       time.Time
		retention time.Duration
		want      string
	}{
		// Service date 2025-06-03 ends at 2025-06-04T00:00Z; 90 days later is 2025-09-02T00:00Z.
		{time.Date(2025, 9, 1, 23, 59, 59, 0, time.UTC), 90 * day, "2025-06-03"},
		{time.Date(2025, 9, 2, 0, 0, 0, 0, time.UTC), 90 * day, "2025-06-04"},
		// A zone is only another way to write the same instant.
		{time.Date(2025, 9, 2, 4, 0, 0, 0, time.FixedZone("UTC+5", 5*3600)), 90 * day, "2025-06-03"},
		{time.Date(2025, 6, 4, 12, 0, 0, 0, time.UTC), 12 * time.Hour, "2025-06-04"},
	} {
		if got := skygate.PassengerDataCutoff(tc.now, tc.retention); got != tc.want {
			t.Errorf("PassengerDataCutoff(%v, %v) = %s, want %s", tc.now, tc.retention, got, tc.want)
		}
	}
}
