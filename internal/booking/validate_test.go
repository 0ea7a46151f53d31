package booking_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/storetest"
)

// TestCreateValidation changes one valid request per case and expects exactly the
// listed field errors (422). Values of the wrong JSON type are the HTTP layer's to
// report (httpapi's TestDecodeBookingRequest).
func TestCreateValidation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	type mod = func(r map[string]any)
	plain := func() map[string]any { return request() }
	tests := []struct {
		name   string
		base   func() map[string]any
		mod    mod
		fields []string
	}{
		{"missing everything", plain, func(r map[string]any) { clear(r) },
			[]string{"fast_track_id", "service_date", "flight", "passengers"}},
		{"unknown fast-track", plain, func(r map[string]any) { r["fast_track_id"] = skygate.NewID() }, []string{"fast_track_id"}},
		{"inactive fast-track", plain, func(r map[string]any) { r["fast_track_id"] = ftInactive }, []string{"fast_track_id"}},
		{"service date format", plain, func(r map[string]any) { r["service_date"] = "2025-6-3" }, []string{"service_date"}},
		{"service date with time", plain, func(r map[string]any) { r["service_date"] = "2025-06-03T00:00:00Z" }, []string{"service_date"}},
		{"service date impossible", plain, func(r map[string]any) { r["service_date"] = "2025-02-30" }, []string{"service_date"}},
		{"service date yesterday", plain, func(r map[string]any) { r["service_date"] = "2025-05-31" }, []string{"service_date"}},
		{"service date too far", plain, func(r map[string]any) { r["service_date"] = "2026-06-03" }, []string{"service_date"}},
		// At 20:00 UTC it is already 2 June at the UTC+5 hub.
		{"service date past at the hub", fullRequest, func(r map[string]any) { r["service_date"] = "2025-06-01" }, []string{"service_date"}},
		{"flight missing", plain, func(r map[string]any) { delete(r, "flight") }, []string{"flight"}},
		{"flight number lower case", plain, func(r map[string]any) { r["flight"].(map[string]any)["number"] = "hy601" }, []string{"flight.number"}},
		{"flight number with space", plain, func(r map[string]any) { r["flight"].(map[string]any)["number"] = "HY 601" }, []string{"flight.number"}},
		{"flight number too long", plain, func(r map[string]any) { r["flight"].(map[string]any)["number"] = "HY60123" }, []string{"flight.number"}},
		{"flight number required", fullRequest, func(r map[string]any) { delete(r["flight"].(map[string]any), "number") }, []string{"flight.number"}},
		{"direction", plain, func(r map[string]any) { r["flight"].(map[string]any)["direction"] = "Departure" }, []string{"flight.direction"}},
		{"direction missing", plain, func(r map[string]any) { delete(r["flight"].(map[string]any), "direction") }, []string{"flight.direction"}},
		{"no passengers", plain, func(r map[string]any) { r["passengers"] = []any{} }, []string{"passengers"}},
		{"ten passengers", plain, func(r map[string]any) {
			r["passengers"] = []any{}
			for range 10 {
				r["passengers"] = append(r["passengers"].([]any), map[string]any{"first_name": "A", "last_name": "B"})
			}
		}, []string{"passengers"}},
		{"names required", plain, func(r map[string]any) { r["passengers"] = []any{map[string]any{}} },
			[]string{"passengers[0].first_name", "passengers[0].last_name"}},
		{"name blank", plain, func(r map[string]any) { passenger(r)["last_name"] = "  " }, []string{"passengers[0].last_name"}},
		{"name too long", plain, func(r map[string]any) { passenger(r)["first_name"] = strings.Repeat("я", 101) }, []string{"passengers[0].first_name"}},
		{"name control", plain, func(r map[string]any) { passenger(r)["first_name"] = "A\nB" }, []string{"passengers[0].first_name"}},
		{"every field required", fullRequest, func(r map[string]any) { r["passengers"] = []any{map[string]any{}} },
			[]string{"passengers[0].first_name", "passengers[0].last_name", "passengers[0].date_of_birth",
				"passengers[0].passport_number", "passengers[0].nationality", "passengers[0].email", "passengers[0].phone"}},
		{"every field invalid", plain, func(r map[string]any) {
			p := passenger(r)
			p["date_of_birth"], p["passport_number"], p["nationality"] = "2030-01-01", "fa-12", "uzb"
			p["email"], p["phone"] = "Ada <ada@example.com>", "998901234567"
		}, []string{"passengers[0].date_of_birth", "passengers[0].passport_number", "passengers[0].nationality",
			"passengers[0].email", "passengers[0].phone"}},
		{"second passenger", plain, func(r map[string]any) {
			r["passengers"] = append(r["passengers"].([]any), map[string]any{"first_name": "Alan"})
		}, []string{"passengers[1].last_name"}},
		{"reference too long", plain, func(r map[string]any) { r["partner_reference"] = strings.Repeat("r", 65) }, []string{"partner_reference"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := tt.base()
			tt.mod(r)
			_, _, err := b.create(t, b.account, "c", "key-"+storetest.NewID(), mustJSON(t, r))
			storetest.WantCode(t, err, skygate.CodeValidation)
			if got := fieldsOf(err); !reflect.DeepEqual(got, tt.fields) {
				t.Fatalf("fields = %v, want %v (%v)", got, tt.fields, err)
			}
		})
	}
}

// TestCreateValidOptions accepts what the rules allow but do not require.
func TestCreateValidOptions(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tests := []struct {
		name string
		r    map[string]any
	}{
		{"nothing required, no names, no flight number", request(func(r map[string]any) {
			r["fast_track_id"] = ftNothing
			r["flight"] = map[string]any{"direction": "arrival"}
			r["passengers"] = []any{map[string]any{}}
			delete(r, "partner_reference")
		})},
		{"nulls are absent", request(func(r map[string]any) { r["partner_reference"] = nil; passenger(r)["email"] = nil })},
		{"nine passengers", request(func(r map[string]any) {
			for range 8 {
				r["passengers"] = append(r["passengers"].([]any), map[string]any{"first_name": "Ada", "last_name": "L"})
			}
		})},
		{"today at the hub", func() map[string]any { r := fullRequest(); r["service_date"] = "2025-06-02"; return r }()},
		{"today in UTC", request(func(r map[string]any) { r["service_date"] = "2025-06-01" })},
		{"suffix and digits airline", request(func(r map[string]any) { r["flight"].(map[string]any)["number"] = "3U1A" })},
		{"unicode names", request(func(r map[string]any) {
			passenger(r)["first_name"] = "Oʻgʻiloy"
			passenger(r)["last_name"] = "Ёқубова"
		})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b.MustCreate(t, tt.r)
		})
	}
}

// TestCreateNotice: a fast-track's booking_before_hours is counted to the start of the
// service day at the airport. At Start (2025-06-02 01:00 at the UTC+5 hub) 24 hours'
// notice reaches 2025-06-03 01:00, so the 3rd is refused and the 4th is the earliest.
func TestCreateNotice(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, tt := range []struct {
		date string
		ok   bool
	}{{"2025-06-02", false}, {"2025-06-03", false}, {"2025-06-04", true}} {
		r := request()
		r["fast_track_id"], r["service_date"] = ftNotice, tt.date
		_, _, err := b.create(t, b.account, "c", "notice-"+tt.date, mustJSON(t, r))
		if tt.ok {
			storetest.MustNoError(t, err, "Create on "+tt.date)
			continue
		}
		storetest.WantCode(t, err, skygate.CodeValidation)
		e := err.(*skygate.Error)
		if len(e.Fields) != 1 || e.Fields[0].Field != "service_date" || !strings.Contains(e.Fields[0].Message, "the earliest service date now is 2025-06-04") {
			t.Errorf("%s: %+v, want service_date naming 2025-06-04 as the earliest", tt.date, e.Fields)
		}
	}
}
