package skygate_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// TestBookingEvents checks which events each transition emits and their bodies.
func TestBookingEvents(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)
	pass := &skygate.Pass{Code: "C"}
	tests := []struct {
		name          string
		from, to      skygate.BookingStatus
		passBefore    *skygate.Pass
		passAfter     *skygate.Pass
		wantBooking   bool
		wantPass      skygate.PassStatus
		wantPrevPass  string // JSON of previous_status
		wantEventsLen int
	}{
		{"issue", "Pending", "Issued", nil, pass, true, "Active", "null", 2},
		{"confirm", "Issued", "Confirmed", pass, pass, true, "", "", 1},
		{"use", "Confirmed", "Completed", pass, pass, true, "Used", `"Active"`, 2},
		{"expire", "Issued", "Expired", pass, pass, true, "Expired", `"Active"`, 2},
		{"cancel issued", "Issued", "Canceled", pass, pass, true, "Voided", `"Active"`, 2},
		{"cancel expired", "Expired", "Canceled", pass, pass, true, "Voided", `"Expired"`, 2},
		{"cancel pending", "Pending", "Canceled", nil, nil, true, "", "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := &skygate.Booking{ID: "b1", AccountID: "a1", Status: tt.from, Pass: tt.passBefore}
			after := &skygate.Booking{ID: "b1", AccountID: "a1", Status: tt.to, Pass: tt.passAfter}
			events, err := skygate.BookingEvents(before, after, now)
			if err != nil {
				t.Fatal(err)
			}
			if len(events) != tt.wantEventsLen {
				t.Fatalf("got %d events, want %d", len(events), tt.wantEventsLen)
			}
			var bd struct {
				BookingID      string          `json:"booking_id"`
				Status         string          `json:"status"`
				PreviousStatus *string         `json:"previous_status"`
				Booking        json.RawMessage `json:"booking"`
			}
			e := events[0]
			if e.Type != skygate.EventBookingStatusChanged || e.AccountID != "a1" || !skygate.IsID(e.ID) || !e.CreatedAt.Equal(now) {
				t.Fatalf("booking event = %+v", e)
			}
			if err := json.Unmarshal(e.Data, &bd); err != nil {
				t.Fatal(err)
			}
			if bd.BookingID != "b1" || bd.Status != string(tt.to) || bd.PreviousStatus == nil || *bd.PreviousStatus != string(tt.from) || len(bd.Booking) == 0 {
				t.Fatalf("booking data = %s", e.Data)
			}
			if tt.wantPass == "" {
				return
			}
			p := events[1]
			var pd map[string]json.RawMessage
			if err := json.Unmarshal(p.Data, &pd); err != nil {
				t.Fatal(err)
			}
			if p.Type != skygate.EventPassStatusChanged || string(pd["status"]) != `"`+string(tt.wantPass)+`"` ||
				string(pd["previous_status"]) != tt.wantPrevPass || string(pd["booking_id"]) != `"b1"` || len(pd) != 3 {
				t.Fatalf("pass event %s = %s", p.Type, p.Data)
			}
		})
	}
}

func TestEventEnvelope(t *testing.T) {
	t.Parallel()
	e := &skygate.Event{ID: "e1", Type: "t", APIVersion: skygate.APIVersion, CreatedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
		AccountID: "a1", Livemode: true, Data: json.RawMessage(`{"x":1}`), Seq: 7}
	got, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"e1","type":"t","api_version":"2026-12-01","created_at":"2025-01-02T03:04:05Z","account_id":"a1","livemode":true,"data":{"x":1}}`
	if string(got) != want {
		t.Fatalf("envelope = %s, want %s", got, want)
	}
}

// TestEventsCarryObjectLivemode: every event constructor takes livemode from the object
// the event is about, and every event is of APIVersion.
func TestEventsCarryObjectLivemode(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for _, live := range []bool{true, false} {
		t.Run(fmt.Sprint("livemode ", live), func(t *testing.T) {
			t.Parallel()
			b := &skygate.Booking{ID: "b1", AccountID: "a1", Status: skygate.BookingIssued, Pass: &skygate.Pass{Code: "C"}, Livemode: live}
			booking, err := skygate.BookingEvents(nil, b, now)
			if err != nil {
				t.Fatal(err)
			}
			o := &skygate.ESIMOrder{ID: "o1", AccountID: "a1", Livemode: live}
			order, err := skygate.ESIMOrderEvents(o, now)
			if err != nil {
				t.Fatal(err)
			}
			total := 100
			before := &skygate.ESIM{ICCID: "1", AccountID: "a1", Status: skygate.ESIMActive, Usage: skygate.NewESIMUsage(&total, 0), Livemode: live}
			after := before.Clone()
			if err := after.ReportUsage(100, skygate.DefaultUsageThresholds); err != nil {
				t.Fatal(err)
			}
			esim, err := skygate.ESIMEvents(before, after, now)
			if err != nil {
				t.Fatal(err)
			}
			all := append(append(booking, order...), esim...)
			if len(all) != 2+1+3 {
				t.Fatalf("%d events, want 6", len(all))
			}
			for _, e := range all {
				if e.Livemode != live || e.APIVersion != skygate.APIVersion {
					t.Errorf("%s: livemode %v api_version %q, want %v %q", e.Type, e.Livemode, e.APIVersion, live, skygate.APIVersion)
				}
			}
		})
	}
}
