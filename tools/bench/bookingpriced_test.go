package main

import (
	"encoding/json"
	"strings"
	"testing"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// TestPricedBookingLoad: the priced creates cycle over the slots, each with its own
// Idempotency-Key and a flight time on its service date.
func TestPricedBookingLoad(t *testing.T) {
	slots := []pricedSlot{{"2030-01-07", "10:30"}, {"2030-01-07", "11:30"}, {"2030-01-08", "09:30"}}
	l := pricedBookingLoad("https://skygate.bench"+bookingsPath, "tok", "ft-1", slots)
	next := l.targeter()
	keys := map[string]bool{}
	seen := map[string]int{}
	for range 2 * len(slots) {
		var tg vegeta.Target
		if err := next(&tg); err != nil {
			t.Fatal(err)
		}
		var b struct {
			FastTrackID string `json:"fast_track_id"`
			ServiceDate string `json:"service_date"`
			Flight      struct {
				ScheduledAt string `json:"scheduled_at"`
			} `json:"flight"`
		}
		if err := json.Unmarshal(tg.Body, &b); err != nil {
			t.Fatalf("body %v: %s", err, tg.Body)
		}
		if b.FastTrackID != "ft-1" || !strings.HasPrefix(b.Flight.ScheduledAt, b.ServiceDate+"T") {
			t.Errorf("body %s", tg.Body)
		}
		seen[b.Flight.ScheduledAt]++
		key := tg.Header.Get("Idempotency-Key")
		if key == "" || keys[key] {
			t.Errorf("Idempotency-Key %q empty or repeated", key)
		}
		keys[key] = true
		if tg.Header.Get("Authorization") != "Bearer tok" || tg.URL != "https://skygate.bench"+bookingsPath {
			t.Errorf("target %s %v", tg.URL, tg.Header)
		}
	}
	for _, sl := range slots {
		if seen[sl.date+"T"+sl.hhmm] != 2 {
			t.Errorf("slot %v used %d times in two cycles: %v", sl, seen[sl.date+"T"+sl.hhmm], seen)
		}
	}
}

// TestReportBookingPriced: a create with reservation is reported beside the plain
// create of its engine, and registered like it.
func TestReportBookingPriced(t *testing.T) {
	rep := &report{}
	rep.add(row{Scenario: scBooking, Engine: engineSQLite, Kind: "http", RPS: 2000})
	rep.add(row{Scenario: scBookingPriced, Engine: engineSQLite, Kind: "http", RPS: 1500})
	rep.add(row{Scenario: scBookingPriced, Engine: enginePostgres, Kind: "http", RPS: 900})
	rep.evaluate()
	if got := rep.Rows[1].Note; !strings.Contains(got, "0.75× booking on sqlite") {
		t.Errorf("note %q", got)
	}
	if got := rep.Rows[2].Note; got != "" {
		t.Errorf("note without a booking row on postgres: %q", got)
	}
	for name, list := range map[string][]string{"engineScenarios": engineScenarios, "allScenarios": allScenarios} {
		if !strings.Contains(strings.Join(list, ","), scBooking+","+scBookingPriced) {
			t.Errorf("%s %v: %s does not follow %s", name, list, scBookingPriced, scBooking)
		}
	}
}
