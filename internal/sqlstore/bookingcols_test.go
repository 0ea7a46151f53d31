package sqlstore

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// mustScan scans text with col into dst and compares with encoding/json.
func mustScan[T any](t *testing.T, text string, col interface{ Scan(any) error }, dst *T) {
	t.Helper()
	var want T
	wantErr := json.Unmarshal([]byte(text), &want)
	for _, src := range []any{text, []byte(text)} {
		err := col.Scan(src)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("Scan(%q) = %v, encoding/json %v", text, err, wantErr)
		}
		if err == nil && !reflect.DeepEqual(*dst, want) {
			t.Fatalf("Scan(%q) =\n %#v\nwant\n %#v", text, *dst, want)
		}
	}
}

// TestBookingColumns checks that the columns JSONText writes read back as what was
// written and as encoding/json reads them, and that anything else reads as
// encoding/json reads it (or is refused as it refuses it).
func TestBookingColumns(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 6, 1, 20, 0, 0, 123456000, time.UTC)
	fast := []any{
		skygate.Flight{Number: "HY601", Direction: skygate.FlightDeparture},
		skygate.Flight{},
		[]skygate.Passenger{},
		[]skygate.Passenger{{FirstName: "Ada", LastName: "Lovelace"}},
		[]skygate.Passenger{
			{FirstName: "Азиза", LastName: "Karimova", DateOfBirth: "1990-04-01", PassportNumber: "FA1234567",
				Nationality: "UZ", Email: "aziza@example.com", Phone: "+998901234567"},
			{FirstName: "O'Brien", LastName: "Ó Briain", Email: "ob@example.com"},
		},
		[]skygate.StatusChange{},
		[]skygate.StatusChange{{Status: skygate.BookingPending, At: at}, {Status: skygate.BookingIssued, At: at.Add(time.Second)}},
	}
	for _, v := range fast {
		text, err := JSONText(v)
		if err != nil {
			t.Fatal(err)
		}
		switch v := v.(type) {
		case skygate.Flight:
			var got skygate.Flight
			mustScan(t, text, flightCol{&got}, &got)
		case []skygate.Passenger:
			var got []skygate.Passenger
			mustScan(t, text, passengersCol{&got}, &got)
			if !reflect.DeepEqual(got, v) {
				t.Fatalf("passengers %s read as %#v", text, got)
			}
		case []skygate.StatusChange:
			var got []skygate.StatusChange
			mustScan(t, text, historyCol{&got}, &got)
		}
	}
	// Not what JSONText writes: encoding/json reads these (or refuses them).
	for _, text := range []string{
		`null`, `{"number": "HY601", "direction": "departure"}`, `{"direction":"arrival","number":"X1"}`,
		`[{"first_name":"A\u0041","last_name":"B"}]`, `[{"first_name":"<&>","last_name":"\"q\""}]`,
		`[{"last_name":"B","first_name":"A"}]`, `[{"first_name":"A","last_name":"B","extra":1}]`,
		`[{"first_name":"A","last_name":"B"},]`, `[{"first_name":"A","last_name":"B"}] `,
		`[{"status":"Pending","at":"2025-06-01T20:00:00+05:00"}]`, `[{"status":"Pending","at":"yesterday"}]`,
		`[{"first_name":"\xff","last_name":"B"}]`, `{"number":"HY601","direction":"departure"`, ``,
	} {
		var f skygate.Flight
		mustScan(t, text, flightCol{&f}, &f)
		var p []skygate.Passenger
		mustScan(t, text, passengersCol{&p}, &p)
		var h []skygate.StatusChange
		mustScan(t, text, historyCol{&h}, &h)
	}
}

// FuzzBookingColumns checks that whatever a column holds, its Scanner reads it as
// encoding/json does, or refuses it as encoding/json does.
func FuzzBookingColumns(f *testing.F) {
	for _, seed := range []string{
		`{"number":"HY601","direction":"departure"}`,
		`[{"first_name":"Ada","last_name":"Lovelace","date_of_birth":"1990-12-10","email":"ada@example.com"}]`,
		`[{"status":"Pending","at":"2025-06-01T20:00:00.123456Z"},{"status":"Issued","at":"2025-06-01T20:00:01Z"}]`,
		`[]`, `[{"first_name":"Азиза","last_name":""}]`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var fl skygate.Flight
		mustScan(t, text, flightCol{&fl}, &fl)
		var p []skygate.Passenger
		mustScan(t, text, passengersCol{&p}, &p)
		var h []skygate.StatusChange
		mustScan(t, text, historyCol{&h}, &h)
	})
}
