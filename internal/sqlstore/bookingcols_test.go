package sqlstore

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// readsLikeEncodingJSON reads text with read and, where read takes it whole, fails
// unless encoding/json reads the same value from it. It says whether read took it.
func readsLikeEncodingJSON[T any](t *testing.T, text string, read func(*lexer) T) bool {
	t.Helper()
	l := &lexer{s: text, ok: true}
	got := read(l)
	if !l.ok || l.i != len(text) {
		return false
	}
	var want T
	if err := json.Unmarshal([]byte(text), &want); err != nil {
		t.Fatalf("read took %q, which encoding/json refuses: %v", text, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read %q as\n %#v\nencoding/json as\n %#v", text, got, want)
	}
	return true
}

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

// TestBookingColumns checks that the columns jsonText writes are read by hand (fast)
// and as encoding/json reads them, and that anything else still reads as encoding/json
// reads it.
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
		text, err := jsonText(v)
		if err != nil {
			t.Fatal(err)
		}
		var took bool
		switch v := v.(type) {
		case skygate.Flight:
			took = readsLikeEncodingJSON(t, text, readFlight)
			var got skygate.Flight
			mustScan(t, text, flightCol{&got}, &got)
		case []skygate.Passenger:
			took = readsLikeEncodingJSON(t, text, readPassengers)
			var got []skygate.Passenger
			mustScan(t, text, passengersCol{&got}, &got)
			if !reflect.DeepEqual(got, v) {
				t.Fatalf("passengers %s read as %#v", text, got)
			}
		case []skygate.StatusChange:
			took = readsLikeEncodingJSON(t, text, readHistory)
			var got []skygate.StatusChange
			mustScan(t, text, historyCol{&got}, &got)
		}
		if !took {
			t.Errorf("%s was not read by hand", text)
		}
	}
	// Not what jsonText writes: encoding/json reads these (or refuses them).
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

// FuzzBookingColumns checks that whatever the hand readers take whole, encoding/json
// reads as the same value.
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
		readsLikeEncodingJSON(t, text, readFlight)
		readsLikeEncodingJSON(t, text, readPassengers)
		readsLikeEncodingJSON(t, text, readHistory)
	})
}

// BenchmarkPassengersColumn compares the hand reader with encoding/json on a column of
// two passengers.
func BenchmarkPassengersColumn(b *testing.B) {
	text := `[{"first_name":"Aziza","last_name":"Karimova","date_of_birth":"1990-04-01","passport_number":"FA1234567",` +
		`"nationality":"UZ","email":"aziza@example.com","phone":"+998901234567"},{"first_name":"Ada","last_name":"Lovelace"}]`
	var p []skygate.Passenger
	b.Run("hand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = passengersCol{&p}.Scan(text)
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p = nil
			_ = jsonCol{&p}.Scan(text)
		}
	})
}
