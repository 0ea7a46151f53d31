package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// TestAvailabilityThroughServer: a fast-track's availability shows a booking's places
// taken from its slot and given back by its cancellation, on both engines.
func TestAvailabilityThroughServer(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		c := s.mustBootstrap("acme", bookingScopes)
		tok := s.mustToken(c, "")
		ft := s.firstFastTrack(tok) // at TAS, open all day
		tashkent, err := time.LoadLocation("Asia/Tashkent")
		if err != nil {
			t.Fatal(err)
		}
		date := time.Now().In(tashkent).AddDate(0, 0, 7).Format(time.DateOnly)
		path := "/v2/catalog/fast-tracks/" + ft + "/availability?date=" + date
		remaining := func() (capacity, left int) {
			t.Helper()
			resp, body := s.get(path, tok, nil)
			if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "no-store" {
				t.Fatalf("availability: %d %q %s", resp.StatusCode, resp.Header.Get("Cache-Control"), body)
			}
			var a skygate.Availability
			if err := json.Unmarshal(body, &a); err != nil || a.TimeZone != "Asia/Tashkent" || len(a.Slots) != 24 {
				t.Fatalf("availability %v: %s", err, body)
			}
			return a.Slots[10].Capacity, a.Slots[10].Remaining
		}
		capacity, before := remaining()
		if capacity == 0 || before != capacity {
			t.Fatalf("10:00 slot: capacity %d, remaining %d", capacity, before)
		}
		body := fmt.Sprintf(`{"fast_track_id":%q,"service_date":%q,"flight":{"number":"HY601","direction":"departure","scheduled_at":"%sT10:30"},
			"passengers":[{"first_name":"Aziza","last_name":"Karimova"},{"first_name":"Timur","last_name":"Karimov","type":"child"},
			{"first_name":"Lola","last_name":"Karimova","type":"infant"}]}`, ft, date, date)
		resp, created := s.book(s.mtlsClient, tok, "avail-1", body)
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("book: %d %s", resp.StatusCode, created)
		}
		if _, after := remaining(); after != capacity-2 {
			t.Fatalf("remaining after booking 2 places = %d, want %d", after, capacity-2)
		}
		b := mustBooking(t, created)
		if resp, body := s.bookingCall(http.MethodPost, bookingPath+"/"+b.ID+"/cancel", tok); resp.StatusCode != 200 {
			t.Fatalf("cancel: %d %s", resp.StatusCode, body)
		}
		if _, after := remaining(); after != capacity {
			t.Fatalf("remaining after the cancel = %d, want %d", after, capacity)
		}
		for _, tt := range []struct {
			path   string
			status int
		}{
			{"/v2/catalog/fast-tracks/" + ft + "/availability", 400},
			{"/v2/catalog/fast-tracks/" + ft + "/availability?date=tomorrow", 400},
			{"/v2/catalog/fast-tracks/" + ft + "/availability?date=2000-01-01", 400},
			{"/v2/catalog/fast-tracks/" + skygate.NewID() + "/availability?date=" + date, 404},
		} {
			if resp, body := s.get(tt.path, tok, nil); resp.StatusCode != tt.status {
				t.Errorf("GET %s: %d %s, want %d", tt.path, resp.StatusCode, body, tt.status)
			}
		}
	})
}
