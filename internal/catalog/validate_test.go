package catalog_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/catalog"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(d *skygate.CatalogData)
		fields []string // every field the error must name
	}{
		{"no hubs", func(d *skygate.CatalogData) { d.Hubs = nil; d.Lounges = nil; d.FastTracks = nil }, []string{"hubs"}},
		{"missing kk", func(d *skygate.CatalogData) { d.Hubs[0].Name.KK = "" }, []string{"hubs[0].name.kk"}},
		{"blank uz", func(d *skygate.CatalogData) { d.Lounges[1].Description.UZ = "  " }, []string{"lounges[1].description.uz"}},
		{"control char", func(d *skygate.CatalogData) { d.Amenities[0].Name.RU = "a\u0007" }, []string{"amenities[0].name.ru"}},
		{"too long", func(d *skygate.CatalogData) { d.FastTracks[0].Name.EN = strings.Repeat("x", 201) }, []string{"fast_tracks[0].name.en"}},
		{"upper-case uuid", func(d *skygate.CatalogData) { d.Hubs[0].ID = strings.ToUpper(d.Hubs[0].ID) }, []string{"hubs[0].id", "lounges[0].hub_id"}},
		{"duplicate id across kinds", func(d *skygate.CatalogData) { d.FastTracks[2].ID = d.Lounges[3].ID }, []string{"fast_tracks[2].id"}},
		{"iata length", func(d *skygate.CatalogData) { d.Hubs[1].Meta.IATA = "SKDX" }, []string{"hubs[1].meta.iata"}},
		{"iata lower", func(d *skygate.CatalogData) { d.Hubs[1].Meta.IATA = "skd" }, []string{"hubs[1].meta.iata"}},
		{"duplicate iata", func(d *skygate.CatalogData) { d.Hubs[1].Meta.IATA = d.Hubs[0].Meta.IATA }, []string{"hubs[1].meta.iata"}},
		{"icao digits", func(d *skygate.CatalogData) { d.Hubs[2].Meta.ICAO = "UT5B" }, []string{"hubs[2].meta.icao"}},
		{"meta kind", func(d *skygate.CatalogData) { d.Hubs[2].Meta.Kind = "Station" }, []string{"hubs[2].meta.kind"}},
		{"hub kind", func(d *skygate.CatalogData) { d.Hubs[2].Kind = "Station"; d.Hubs[2].Meta.Kind = "Station" }, []string{"hubs[2].kind"}},
		{"country", func(d *skygate.CatalogData) { d.Hubs[0].Location.Country = "Uz" }, []string{"hubs[0].location.country"}},
		{"continent with space", func(d *skygate.CatalogData) { d.Hubs[0].Location.Continent = "North America" }, []string{"hubs[0].location.continent"}},
		{"latitude", func(d *skygate.CatalogData) { d.Hubs[0].Location.Coordinates.Latitude = 91 }, []string{"hubs[0].location.coordinates.latitude"}},
		{"longitude", func(d *skygate.CatalogData) { d.Hubs[0].Location.Coordinates.Longitude = -180.5 }, []string{"hubs[0].location.coordinates.longitude"}},
		{"timezone unknown", func(d *skygate.CatalogData) { d.Hubs[0].Timezone = "Asia/Atlantis" }, []string{"hubs[0].timezone"}},
		{"timezone empty", func(d *skygate.CatalogData) { d.Hubs[0].Timezone = "" }, []string{"hubs[0].timezone"}},
		{"timezone Local", func(d *skygate.CatalogData) { d.Hubs[0].Timezone = "Local" }, []string{"hubs[0].timezone"}},
		{"amenity id", func(d *skygate.CatalogData) { d.Amenities[0].ID = "Wi-Fi" }, []string{"amenities[0].id"}},
		{"unknown amenity", func(d *skygate.CatalogData) { d.Lounges[0].Amenities[0].ID = "pool" }, []string{"lounges[0].amenities[0].id"}},
		{"duplicate amenity", func(d *skygate.CatalogData) { d.Lounges[0].Amenities[1].ID = d.Lounges[0].Amenities[0].ID }, []string{"lounges[0].amenities[1].id"}},
		{"unknown hub", func(d *skygate.CatalogData) { d.FastTracks[0].HubID = "7c9e6679-7425-40de-944b-e07fc1f90ae7" }, []string{"fast_tracks[0].hub_id"}},
		{"code", func(d *skygate.CatalogData) { d.Lounges[0].Code = "tas lounge" }, []string{"lounges[0].code"}},
		{"duplicate code", func(d *skygate.CatalogData) { d.Lounges[1].Code = d.Lounges[0].Code }, []string{"lounges[1].code"}},
		{"terminal", func(d *skygate.CatalogData) { d.Lounges[0].Terminal = "" }, []string{"lounges[0].terminal"}},
		{"zone", func(d *skygate.CatalogData) { d.Lounges[0].AirsideZone = "international" }, []string{"lounges[0].airside_zone"}},
		{"six days", func(d *skygate.CatalogData) { d.Lounges[0].BusinessHours = d.Lounges[0].BusinessHours[:6] }, []string{"lounges[0].business_hours"}},
		{"day zero", func(d *skygate.CatalogData) { d.FastTracks[0].BusinessHours[0].Day = 0 }, []string{"fast_tracks[0].business_hours[0].day"}},
		{"days out of order", func(d *skygate.CatalogData) {
			h := d.FastTracks[0].BusinessHours
			h[0].Day, h[1].Day = 2, 1
		}, []string{"fast_tracks[0].business_hours[0].day", "fast_tracks[0].business_hours[1].day"}},
		{"hours type", func(d *skygate.CatalogData) { d.Lounges[0].BusinessHours[3].Times.Type = "OPEN" }, []string{"lounges[0].business_hours[3].times.type"}},
		{"24H detail", func(d *skygate.CatalogData) { d.Lounges[0].BusinessHours[3].Times = hours("24H", "24/7") }, []string{"lounges[0].business_hours[3].times.detail"}},
		{"CLOSED detail", func(d *skygate.CatalogData) { d.Lounges[0].BusinessHours[3].Times = hours("CLOSED", "closed") }, []string{"lounges[0].business_hours[3].times.detail"}},
		{"STANDARD empty", func(d *skygate.CatalogData) { d.Lounges[0].BusinessHours[3].Times = hours("STANDARD", "") }, []string{"lounges[0].business_hours[3].times.detail"}},
		{"STANDARD bad clock", func(d *skygate.CatalogData) { d.Lounges[0].BusinessHours[3].Times = hours("STANDARD", "6:00-23:00") }, []string{"lounges[0].business_hours[3].times.detail"}},
		{"STANDARD overnight", func(d *skygate.CatalogData) { d.Lounges[0].BusinessHours[3].Times = hours("STANDARD", "22:00-02:00") }, []string{"lounges[0].business_hours[3].times.detail"}},
		{"STANDARD overlap", func(d *skygate.CatalogData) {
			d.Lounges[0].BusinessHours[3].Times = hours("STANDARD", "06:00-12:00,11:00-14:00")
		}, []string{"lounges[0].business_hours[3].times.detail"}},
		{"STANDARD whole day", func(d *skygate.CatalogData) { d.Lounges[0].BusinessHours[3].Times = hours("STANDARD", "00:00-24:00") }, []string{"lounges[0].business_hours[3].times.detail"}},
		{"STANDARD 24:30", func(d *skygate.CatalogData) { d.Lounges[0].BusinessHours[3].Times = hours("STANDARD", "06:00-24:30") }, []string{"lounges[0].business_hours[3].times.detail"}},
		{"min age", func(d *skygate.CatalogData) { d.Lounges[0].Policy.Age.MinAge = -1 }, []string{"lounges[0].policy.age.min_age"}},
		{"max duration", func(d *skygate.CatalogData) { d.Lounges[0].Policy.Stay.MaxDuration = "3h" }, []string{"lounges[0].policy.stay.max_duration"}},
		{"booking before", func(d *skygate.CatalogData) { d.FastTracks[0].Policy.BookingBeforeHours = "PT0H" }, []string{"fast_tracks[0].policy.booking_before_hours"}},
		{"capacity negative", func(d *skygate.CatalogData) { d.FastTracks[0].CapacityPerSlot = -1 }, []string{"fast_tracks[0].capacity_per_slot"}},
		{"capacity too large", func(d *skygate.CatalogData) { d.FastTracks[0].CapacityPerSlot = 10001 }, []string{"fast_tracks[0].capacity_per_slot"}},
		{"cancellation not decreasing", func(d *skygate.CatalogData) {
			d.FastTracks[0].Policy.Cancellation = []skygate.CancellationRule{{HoursBefore: 2, RefundPercent: 50}, {HoursBefore: 2, RefundPercent: 10}}
		}, []string{"fast_tracks[0].policy.cancellation[1].hours_before"}},
		{"cancellation hours", func(d *skygate.CatalogData) {
			d.FastTracks[0].Policy.Cancellation = []skygate.CancellationRule{{HoursBefore: 8761, RefundPercent: 100}, {HoursBefore: -1, RefundPercent: 50}}
		}, []string{"fast_tracks[0].policy.cancellation[0].hours_before", "fast_tracks[0].policy.cancellation[1].hours_before"}},
		{"cancellation percent", func(d *skygate.CatalogData) {
			d.FastTracks[0].Policy.Cancellation = []skygate.CancellationRule{{HoursBefore: 24, RefundPercent: 101}, {HoursBefore: 2, RefundPercent: -1}}
		}, []string{"fast_tracks[0].policy.cancellation[0].refund_percent", "fast_tracks[0].policy.cancellation[1].refund_percent"}},
		{"booking info unknown", func(d *skygate.CatalogData) {
			d.FastTracks[0].RequiredBookingInfo = []skygate.BookingInfo{"Name", "Shoe size"}
		}, []string{"fast_tracks[0].required_booking_info[1]"}},
		{"booking info twice", func(d *skygate.CatalogData) {
			d.FastTracks[0].RequiredBookingInfo = []skygate.BookingInfo{"Name", "Name"}
		}, []string{"fast_tracks[0].required_booking_info[1]"}},
		{"booking info empty", func(d *skygate.CatalogData) { d.FastTracks[0].RequiredBookingInfo = nil }, []string{"fast_tracks[0].required_booking_info"}},
		{"image http", func(d *skygate.CatalogData) { d.Lounges[0].Images[0].URL = "http://cdn.example/x.jpg" }, []string{"lounges[0].images[0].url"}},
		{"image relative", func(d *skygate.CatalogData) { d.Lounges[0].Images[0].URL = "/x.jpg" }, []string{"lounges[0].images[0].url"}},
		{"image sort twice", func(d *skygate.CatalogData) { d.Lounges[0].Images[1].Sort = d.Lounges[0].Images[0].Sort }, []string{"lounges[0].images[1].sort"}},
		{"image title", func(d *skygate.CatalogData) { d.Lounges[0].Images[0].Title.RU = "" }, []string{"lounges[0].images[0].title.ru"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := MustSeedData(t)
			tt.change(d)
			err := catalog.Validate(d)
			if !skygate.IsCode(err, skygate.CodeValidation) {
				t.Fatalf("Validate: %v, want %s", err, skygate.CodeValidation)
			}
			var got []string
			for _, f := range err.(*skygate.Error).Fields {
				got = append(got, f.Field)
			}
			for _, f := range tt.fields {
				if !slices.Contains(got, f) {
					t.Errorf("error names %v, want %s", got, f)
				}
			}
			// Load of the same document reports the same.
			if _, err := catalog.Load(MustMarshal(t, d)); !skygate.IsCode(err, skygate.CodeValidation) {
				t.Errorf("Load: %v", err)
			}
		})
	}
}

func hours(typ, detail string) skygate.BusinessHoursTimes {
	return skygate.BusinessHoursTimes{Type: skygate.HoursType(typ), Detail: detail}
}

func TestValidateCapsProblems(t *testing.T) {
	t.Parallel()
	d := MustSeedData(t)
	for i := range d.Lounges {
		d.Lounges[i].Name = skygate.LocalizedText{}
		d.Lounges[i].Description = skygate.LocalizedText{}
	}
	err := catalog.Validate(d).(*skygate.Error)
	if len(err.Fields) != 100 {
		t.Errorf("%d problems, want the cap of 100", len(err.Fields))
	}
}

func TestDecodeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc string
		wantMsg   string
	}{
		{"empty", "", "empty"},
		{"syntax", "{\n  \"hubs\": [,]\n}", "line 2, column"},
		{"unknown field", `{"hubs":[],"shops":[]}`, `unknown field "shops"`},
		{"wrong type", `{"hubs":[{"location":{"coordinates":{"latitude":"41"}}}]}`, "wrong type"},
		{"trailing data", `{"hubs":[]} {}`, "after its end"},
		{"truncated", `{"hubs":[`, "truncated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := catalog.Load([]byte(tt.doc))
			if !skygate.IsCode(err, skygate.CodeBadRequest) {
				t.Fatalf("Load: %v, want %s", err, skygate.CodeBadRequest)
			}
			if msg := skygate.ErrorMessage(err); !strings.Contains(msg, tt.wantMsg) || strings.Contains(msg, "skygate.") {
				t.Errorf("message %q, want it to contain %q and no Go names", msg, tt.wantMsg)
			}
		})
	}
}

func TestParseISODuration(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]time.Duration{
		"PT3H": 3 * time.Hour, "PT2H30M": 150 * time.Minute, "P1D": 24 * time.Hour,
		"P1DT12H": 36 * time.Hour, "PT45M": 45 * time.Minute,
	} {
		if got, err := catalog.ParseISODuration(s); err != nil || got != want {
			t.Errorf("ParseISODuration(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "P", "PT", "P1DT", "PT0H", "3H", "PT1.5H", "PT1S", "P1W", "pt3h", "PT-1H", "PT99999H"} {
		if _, err := catalog.ParseISODuration(s); err == nil {
			t.Errorf("ParseISODuration(%q) succeeded", s)
		}
	}
}

func TestParseHours(t *testing.T) {
	t.Parallel()
	got, err := catalog.ParseHours(hours("STANDARD", "05:00-12:00,14:00-24:00"))
	if err != nil || !slices.Equal(got, []catalog.Interval{{300, 720}, {840, 1440}}) {
		t.Errorf("ParseHours = %v, %v", got, err)
	}
	if got, err := catalog.ParseHours(hours("CLOSED", "")); err != nil || got != nil {
		t.Errorf("CLOSED = %v, %v", got, err)
	}
	if got, err := catalog.ParseHours(hours("24H", "00:00-24:00")); err != nil || len(got) != 1 {
		t.Errorf("24H = %v, %v", got, err)
	}
}
