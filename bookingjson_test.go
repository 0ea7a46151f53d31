package skygate_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

// reflected is Booking without its methods: encoding/json encodes it from its struct
// tags alone.
type reflected skygate.Booking

// mustMatchEncodingJSON fails unless the stores' encoding of b's JSON columns (flight,
// passengers, status history: sqlstore.JSONText) and json.Marshal(b), the partner-facing
// form, agree byte for byte with encoding/json's encoding of the struct tags, errors
// included.
func mustMatchEncodingJSON(t *testing.T, b *skygate.Booking) {
	t.Helper()
	for _, part := range []struct {
		name  string
		value any
	}{
		{"flight", b.Flight},
		{"passengers", b.Passengers},
		{"status history", b.StatusHistory},
	} {
		want, wantErr := json.Marshal(part.value)
		got, err := sqlstore.JSONText(part.value)
		if (err != nil) != (wantErr != nil) || err == nil && got != string(want) {
			t.Fatalf("%s: %s, %v; encoding/json %s, %v", part.name, got, err, want, wantErr)
		}
	}
	want, wantErr := json.Marshal((*reflected)(b))
	got, err := json.Marshal(b)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("json.Marshal error %v, encoding/json of the tags %v", err, wantErr)
	}
	if err == nil && !bytes.Equal(got, want) {
		t.Fatalf("json.Marshal:\n got  %s\n want %s", got, want)
	}
}

// fullBooking is an Issued booking with every field set.
func fullBooking() *skygate.Booking {
	at := time.Date(2025, 6, 1, 20, 0, 0, 123456000, time.UTC)
	deadline := at.Add(48 * time.Hour)
	removed := at.Add(92 * 24 * time.Hour)
	return &skygate.Booking{
		ID: "0197f0c2-1d2e-7a3b-8c4d-5e6f7a8b9c0d", Status: skygate.BookingIssued,
		FastTrackID: "11111111-1111-4111-8111-111111111111", ServiceDate: "2025-06-03",
		Flight: skygate.Flight{Number: "HY601", Direction: skygate.FlightDeparture, ScheduledAt: "2025-06-03T09:40"},
		Passengers: []skygate.Passenger{
			{FirstName: "Aziza", LastName: "Karimova", Type: skygate.PassengerAdult, DateOfBirth: "1990-04-01",
				PassportNumber: "FA1234567", Nationality: "UZ", Email: "aziza@example.com", Phone: "+998901234567"},
			{FirstName: "Ada", LastName: "Lovelace", Type: skygate.PassengerChild, Email: "ada@example.com"},
		},
		Price: &skygate.Money{Amount: 4500, Currency: "EUR"},
		CancellationPolicy: []skygate.CancellationTerm{
			{Until: at.Add(36 * time.Hour), RefundPercent: 100, Refund: skygate.Money{Amount: 4500, Currency: "EUR"}},
		},
		Refund:           &skygate.Money{Amount: 4500, Currency: "EUR"},
		QuoteID:          "0197f0c2-1d2e-7a3b-8c4d-000000000001",
		Slot:             &skygate.BookingSlot{Start: at.Add(36 * time.Hour), Places: 2, Capacity: 40},
		PartnerReference: "PNR-42", ConfirmBefore: &deadline, CreatedAt: at, UpdatedAt: at.Add(time.Second),
		StatusHistory: []skygate.StatusChange{{Status: skygate.BookingPending, At: at}, {Status: skygate.BookingIssued, At: at.Add(time.Second)}},
		AccountID:     "acc", ClientID: "client", Pass: &skygate.Pass{Code: "RVRRREX5FL"},
		PersonalDataRemovedAt: &removed,
	}
}

// TestBookingJSONForms pins the partner-facing JSON form of a booking (CONTRACT §4): member
// names and order, nulls for nil lists and absent times, RFC 3339 times with the
// fraction they have, and the empty optional fields of a passenger left out.
func TestBookingJSONForms(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		booking *skygate.Booking
		want    string
	}{
		{"full", fullBooking(), `{"id":"0197f0c2-1d2e-7a3b-8c4d-5e6f7a8b9c0d","status":"Issued",` +
			`"fast_track_id":"11111111-1111-4111-8111-111111111111","service_date":"2025-06-03",` +
			`"flight":{"number":"HY601","direction":"departure","scheduled_at":"2025-06-03T09:40"},` +
			`"passengers":[{"first_name":"Aziza","last_name":"Karimova","type":"adult","date_of_birth":"1990-04-01",` +
			`"passport_number":"FA1234567","nationality":"UZ","email":"aziza@example.com","phone":"+998901234567"},` +
			`{"first_name":"Ada","last_name":"Lovelace","type":"child","email":"ada@example.com"}],` +
			`"partner_reference":"PNR-42","confirm_before":"2025-06-03T20:00:00.123456Z",` +
			`"created_at":"2025-06-01T20:00:00.123456Z","updated_at":"2025-06-01T20:00:01.123456Z",` +
			`"status_history":[{"status":"Pending","at":"2025-06-01T20:00:00.123456Z"},` +
			`{"status":"Issued","at":"2025-06-01T20:00:01.123456Z"}],` +
			`"personal_data_removed_at":"2025-09-01T20:00:00.123456Z",` +
			`"price":{"amount":4500,"currency":"EUR"},` +
			`"cancellation_policy":[{"until":"2025-06-03T08:00:00.123456Z","refund_percent":100,` +
			`"refund":{"amount":4500,"currency":"EUR"}}],` +
			`"refund":{"amount":4500,"currency":"EUR"},"quote_id":"0197f0c2-1d2e-7a3b-8c4d-000000000001"}`},
		{"zero", &skygate.Booking{}, `{"id":"","status":"","fast_track_id":"","service_date":"",` +
			`"flight":{"number":"","direction":""},"passengers":null,"partner_reference":"",` +
			`"confirm_before":null,"created_at":"0001-01-01T00:00:00Z","updated_at":"0001-01-01T00:00:00Z",` +
			`"status_history":null,"personal_data_removed_at":null}`},
	} {
		got, err := json.Marshal(tt.booking)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s: %s, %v\nwant %s", tt.name, got, err, tt.want)
		}
	}
}

// TestBookingAppendJSON checks the stores' and the partner-facing encodings against encoding/json on bookings whose fields
// take every shape the encoder treats apart.
func TestBookingAppendJSON(t *testing.T) {
	t.Parallel()
	tests := map[string]func(b *skygate.Booking){
		"full":      func(*skygate.Booking) {},
		"zero":      func(b *skygate.Booking) { *b = skygate.Booking{} },
		"nil lists": func(b *skygate.Booking) { b.Passengers, b.StatusHistory, b.ConfirmBefore = nil, nil, nil },
		"empty lists": func(b *skygate.Booking) {
			b.Passengers, b.StatusHistory = []skygate.Passenger{}, []skygate.StatusChange{}
		},
		"empty passenger":      func(b *skygate.Booking) { b.Passengers = []skygate.Passenger{{}} },
		"html":                 func(b *skygate.Booking) { b.PartnerReference = `<a href="x">&</a>` },
		"escapes":              func(b *skygate.Booking) { b.Passengers[0].LastName = "tab\tquote\"back\\slash\x00\x1f\x7f" },
		"unicode":              func(b *skygate.Booking) { b.Passengers[0].FirstName = "Азиза \u2028\u2029 ✈" },
		"invalid utf-8":        func(b *skygate.Booking) { b.Flight.Number = "HY\xff\xfe601" },
		"valid U+FFFD and DEL": func(b *skygate.Booking) { b.Passengers[1].LastName = "Lee \uFFFD\x7f Ли" },
		"zone and nanos": func(b *skygate.Booking) {
			b.CreatedAt = time.Date(2025, 1, 2, 3, 4, 5, 6, time.FixedZone("", 5*3600+1800))
		},
		"year past 9999":   func(b *skygate.Booking) { b.UpdatedAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) },
		"bad history time": func(b *skygate.Booking) { b.StatusHistory[1].At = time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC) },
		"bad deadline": func(b *skygate.Booking) {
			d := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
			b.ConfirmBefore = &d
		},
		"personal data kept": func(b *skygate.Booking) { b.PersonalDataRemovedAt = nil },
		"bad removal time": func(b *skygate.Booking) {
			d := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
			b.PersonalDataRemovedAt = &d
		},
	}
	for name, mod := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := fullBooking()
			mod(b)
			mustMatchEncodingJSON(t, b)
		})
	}
}

// FuzzBookingJSON checks the stores' and the partner-facing encodings against encoding/json on arbitrary strings and
// times.
func FuzzBookingJSON(f *testing.F) {
	f.Add("PNR-42", "Ada", "ada@example.com", int64(1748808000), int64(123456000), 0, false)
	f.Add(`<&>"\`, "\u2028\xff", "", int64(-62135596800), int64(0), 18000, true)
	f.Add("\x00\x7f", "Азиза", "a\tb", int64(253402300800), int64(999999999), -3600, false)
	f.Fuzz(func(t *testing.T, ref, name, email string, sec, nsec int64, offset int, nilLists bool) {
		b := fullBooking()
		b.PartnerReference, b.Passengers[1].FirstName, b.Passengers[1].Email = ref, name, email
		b.Status = skygate.BookingStatus(name)
		b.CreatedAt = time.Unix(sec, nsec).In(time.FixedZone("", offset%(30*3600)))
		if nilLists {
			b.Passengers, b.StatusHistory = nil, nil
		}
		mustMatchEncodingJSON(t, b)
	})
}

// TestBookingEventsJSON checks that the events' data is what encoding/json writes for
// BookingStatusChanged and PassStatusChanged, the booking's passengers with their
// names only.
func TestBookingEventsJSON(t *testing.T) {
	t.Parallel()
	after := fullBooking()
	after.PartnerReference = "<&>"
	before := after.Clone()
	before.Status = skygate.BookingPending
	named := after.Clone()
	named.Passengers = skygate.PassengerNames(after.Passengers)
	for _, tt := range []struct {
		name   string
		before *skygate.Booking
		want   []any
	}{
		{"issue", before, []any{
			skygate.BookingStatusChanged{BookingID: after.ID, Status: after.Status, PreviousStatus: &before.Status, Booking: named},
			skygate.PassStatusChanged{BookingID: after.ID, Status: skygate.PassActive},
		}},
		{"creation", nil, []any{
			skygate.BookingStatusChanged{BookingID: after.ID, Status: after.Status, Booking: named},
			skygate.PassStatusChanged{BookingID: after.ID, Status: skygate.PassActive},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			events, err := skygate.BookingEvents(tt.before, after, after.UpdatedAt)
			if err != nil || len(events) != len(tt.want) {
				t.Fatalf("BookingEvents = %d events, %v; want %d", len(events), err, len(tt.want))
			}
			for i, data := range tt.want {
				want, err := json.Marshal(data)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(events[i].Data, want) {
					t.Errorf("%s data:\n got  %s\n want %s", events[i].Type, events[i].Data, want)
				}
			}
		})
	}
	used := after.Clone()
	used.Status = skygate.BookingCompleted
	events, err := skygate.BookingEvents(after, used, used.UpdatedAt)
	if err != nil || len(events) != 2 {
		t.Fatalf("use: %d events, %v; want 2", len(events), err)
	}
	prev := skygate.PassActive
	want, _ := json.Marshal(skygate.PassStatusChanged{BookingID: used.ID, Status: skygate.PassUsed, PreviousStatus: &prev})
	if !bytes.Equal(events[1].Data, want) {
		t.Fatalf("use: pass data %s, want %s", events[1].Data, want)
	}
}
