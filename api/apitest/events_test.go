package apitest_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/api/apitest"
)

// bookingEvent returns the body of the booking.status.changed event of a booking's
// creation whose passenger has every personal field.
func bookingEvent(t *testing.T) string {
	t.Helper()
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	b := &skygate.Booking{
		ID: skygate.NewID(), AccountID: skygate.NewID(), Status: skygate.BookingPending, FastTrackID: skygate.NewID(),
		ServiceDate: "2026-12-08", Flight: skygate.Flight{Number: "HY601", Direction: skygate.FlightDeparture},
		Passengers: []skygate.Passenger{{FirstName: "Aziza", LastName: "Karimova", DateOfBirth: "1990-04-01",
			PassportNumber: "FA1234567", Nationality: "UZ", Email: "aziza@example.com", Phone: "+998901234567"}},
		CreatedAt: now, UpdatedAt: now, StatusHistory: []skygate.StatusChange{{Status: skygate.BookingPending, At: now}},
		Livemode: true,
	}
	events, err := skygate.BookingEvents(nil, b, now)
	if err != nil || len(events) != 1 {
		t.Fatalf("BookingEvents: %d events, %v", len(events), err)
	}
	body, err := json.Marshal(events[0])
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

// TestValidateEvent checks that the helper accepts what the service writes and
// rejects bodies that leave the documented payload: an open schema would let a
// personal field or a missing envelope field through.
func TestValidateEvent(t *testing.T) {
	t.Parallel()
	valid := bookingEvent(t)
	if err := apitest.ValidateEvent([]byte(valid)); err != nil {
		t.Fatalf("the service's event: %v", err)
	}
	for _, tt := range []struct{ name, old, new string }{
		{"personal field", `"last_name":"Karimova"`, `"last_name":"Karimova","email":"aziza@example.com"`},
		{"no livemode", `"livemode":true,`, ``},
		{"no api_version", `"api_version":"2026-12-01",`, ``},
		{"other api_version", `"api_version":"2026-12-01"`, `"api_version":"2020-01-01"`},
		{"unknown envelope field", `"livemode":true,`, `"livemode":true,"extra":1,`},
		{"unknown data field", `"booking_id":`, `"extra":1,"booking_id":`},
		{"unknown type", `"type":"booking.status.changed"`, `"type":"booking.exploded"`},
		{"no type", `"type":"booking.status.changed",`, ``},
		{"null status", `"status":"Pending","previous_status"`, `"status":null,"previous_status"`},
		{"not JSON", `{`, `[`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if !strings.Contains(valid, tt.old) {
				t.Fatalf("the event has no %s: %s", tt.old, valid)
			}
			if err := apitest.ValidateEvent([]byte(strings.Replace(valid, tt.old, tt.new, 1))); err == nil {
				t.Errorf("accepted %s", tt.name)
			}
		})
	}
}
