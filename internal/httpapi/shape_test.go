package httpapi

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/booking"
	"github.com/skygate/skygate/internal/idempotency"
)

// validBooking is a create request with every field.
const validBooking = `{"fast_track_id":"f","service_date":"2025-06-03","flight":{"number":"HY601","direction":"departure"},
	"passengers":[{"first_name":"Ada","last_name":"Lovelace","date_of_birth":"1990-12-10","passport_number":"FA1234567",
	"nationality":"UZ","email":"ada@example.com","phone":"+998901234567"}],"partner_reference":"PNR-42"}`

// TestDecodeBookingRequest holds the decoding of a create request's body (the
// fingerprint first, as createBooking does): 400 for a body that is not one JSON
// object or has unknown fields, every one named; 422 naming each value of the wrong
// JSON type.
func TestDecodeBookingRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		body   string
		code   string
		fields []string
	}{
		{"malformed", `{"fast_track_id":`, skygate.CodeBadRequest, nil},
		{"two values", `{} {}`, skygate.CodeBadRequest, nil},
		{"array", `[]`, skygate.CodeBadRequest, nil},
		{"string", `"booking"`, skygate.CodeBadRequest, nil},
		{"unknown fields", strings.Replace(strings.Replace(strings.Replace(validBooking,
			`"partner_reference"`, `"extra":1,"partner_reference"`, 1),
			`"direction"`, `"gate":"A1","direction"`, 1),
			`"first_name"`, `"middle_name":"B","first_name"`, 1),
			skygate.CodeBadRequest, []string{"extra", "flight.gate", "passengers[0].middle_name"}},
		{"unknown field in other case", strings.Replace(validBooking, `"fast_track_id"`, `"Fast_Track_ID"`, 1),
			skygate.CodeBadRequest, []string{"Fast_Track_ID"}},
		{"unknown and mistyped", `{"extra":1,"fast_track_id":7}`, skygate.CodeBadRequest, []string{"extra"}},
		{"repeated member", strings.Replace(validBooking, `{"fast_track_id":"f"`, `{"fast_track_id":"x","fast_track_id":"f"`, 1),
			skygate.CodeBadRequest, []string{"fast_track_id"}},
		{"invalid UTF-8", strings.Replace(validBooking, "Ada", "A\xffa", 1), skygate.CodeBadRequest, nil},
		{"fast_track_id not a string", strings.Replace(validBooking, `"f"`, `7`, 1), skygate.CodeValidation, []string{"fast_track_id"}},
		{"flight not an object", strings.Replace(validBooking, `{"number":"HY601","direction":"departure"}`, `"HY601"`, 1),
			skygate.CodeValidation, []string{"flight"}},
		{"flight number a huge number", strings.Replace(validBooking, `"HY601"`, `1e999`, 1), skygate.CodeValidation, []string{"flight.number"}},
		{"passengers not an array", `{"passengers":{}}`, skygate.CodeValidation, []string{"passengers"}},
		{"passenger not an object", `{"passengers":["Ada"]}`, skygate.CodeValidation, []string{"passengers[0]"}},
		{"passenger null", `{"passengers":[null]}`, skygate.CodeValidation, []string{"passengers[0]"}},
		{"name not a string", `{"passengers":[{"first_name":true}]}`, skygate.CodeValidation, []string{"passengers[0].first_name"}},
		{"every wrong type", `{"fast_track_id":1,"service_date":false,"flight":[],"passengers":[{"last_name":{}},3],"partner_reference":[]}`,
			skygate.CodeValidation, []string{"fast_track_id", "flight", "partner_reference", "passengers[0].last_name", "passengers[1]", "service_date"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := idempotency.Fingerprint([]byte(tt.body))
			if err == nil {
				_, err = decodeBookingRequest([]byte(tt.body))
			}
			var e *skygate.Error
			if !errors.As(err, &e) || e.Code != tt.code {
				t.Fatalf("error = %v, want %s", err, tt.code)
			}
			if tt.fields == nil {
				return
			}
			var got []string
			for _, f := range e.Fields {
				got = append(got, f.Field)
			}
			if !reflect.DeepEqual(got, tt.fields) {
				t.Fatalf("fields = %v, want %v", got, tt.fields)
			}
		})
	}
}

// TestDecodeBookingRequestAccepts decodes what the contract allows: nulls as absent
// members, every field.
func TestDecodeBookingRequestAccepts(t *testing.T) {
	t.Parallel()
	full := booking.Request{FastTrackID: "f", ServiceDate: "2025-06-03",
		Flight: &skygate.Flight{Number: "HY601", Direction: skygate.FlightDeparture},
		Passengers: []skygate.Passenger{{FirstName: "Ada", LastName: "Lovelace", DateOfBirth: "1990-12-10",
			PassportNumber: "FA1234567", Nationality: "UZ", Email: "ada@example.com", Phone: "+998901234567"}},
		PartnerReference: "PNR-42"}
	tests := []struct {
		name string
		body string
		want booking.Request
	}{
		{"every field", validBooking, full},
		{"nulls", `{"fast_track_id":null,"flight":null,"passengers":[{"first_name":"Ada","email":null}],"partner_reference":null}`,
			booking.Request{Passengers: []skygate.Passenger{{FirstName: "Ada"}}}},
		{"empty", `{}`, booking.Request{}},
		{"no passengers", `{"passengers":[]}`, booking.Request{Passengers: []skygate.Passenger{}}},
	}
	for _, tt := range tests {
		got, err := decodeBookingRequest([]byte(tt.body))
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: decodeBookingRequest = %+v, %v; want %+v", tt.name, got, err, tt.want)
		}
	}
}

// TestBookingShapeIsTheRequest holds bookingShape to booking.Request: the shape
// decodes into the request with no unknown field, and a request with every field set
// passes the shape.
func TestBookingShapeIsTheRequest(t *testing.T) {
	t.Parallel()
	shape, err := json.Marshal(bookingShape)
	if err != nil {
		t.Fatal(err)
	}
	if err := unmarshalStrict(shape, new(booking.Request)); err != nil {
		t.Fatalf("the shape is not a booking.Request: %v", err)
	}
	full := booking.Request{Flight: &skygate.Flight{Number: "x", Direction: "x"}, FastTrackID: "x", ServiceDate: "x",
		PartnerReference: "x", Passengers: []skygate.Passenger{{FirstName: "x", LastName: "x", DateOfBirth: "x",
			PassportNumber: "x", Nationality: "x", Email: "x", Phone: "x"}}}
	body, err := json.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkShape(body, bookingShape); err != nil {
		t.Fatalf("a full request does not pass the shape: %v", err)
	}
}

// FuzzDecodeBookingRequest: whatever the body, decoding a create request does not
// panic, and a request it accepts is what strict decoding (unmarshalStrict, as every
// other route decodes its body) makes of it.
func FuzzDecodeBookingRequest(f *testing.F) {
	for _, s := range []string{validBooking, `{}`, `[]`, `{"passengers":[null,{"x":1}]}`, `{"flight":{"number":1},"flight":null}`,
		`{"FAST_TRACK_ID":"f"}`, `{"fast_track_id":"a\u0000","passengers":[{"first_name":"\ud800"}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if _, err := idempotency.Fingerprint(body); err != nil {
			return
		}
		got, err := decodeBookingRequest(body)
		if err != nil {
			return
		}
		var want booking.Request
		if err := unmarshalStrict(body, &want); err != nil {
			t.Fatalf("decodeBookingRequest accepted %q, which strict decoding refuses: %v", body, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decodeBookingRequest(%q) = %+v, strict decoding %+v", body, got, want)
		}
	})
}
