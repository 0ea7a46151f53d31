package skygate_test

import (
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// TestOrderingKeys checks the object each event constructor names: a booking's events
// share the booking's key, an eSIM's its ICCID's, an order's event the order's; keys
// of different kinds of object never collide.
func TestOrderingKeys(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)
	pass := &skygate.Pass{Code: "C"}
	issued, err := skygate.BookingEvents(
		&skygate.Booking{ID: "b1", AccountID: "a1", Status: skygate.BookingPending},
		&skygate.Booking{ID: "b1", AccountID: "a1", Status: skygate.BookingIssued, Pass: pass}, now)
	if err != nil {
		t.Fatal(err)
	}
	created, err := skygate.BookingEvents(nil, &skygate.Booking{ID: "b1", AccountID: "a1", Status: skygate.BookingPending}, now)
	if err != nil {
		t.Fatal(err)
	}
	before := newESIM(ptr(1000))
	after := before.Clone()
	if err := after.Install(now); err != nil {
		t.Fatal(err)
	}
	esimEvents, err := skygate.ESIMEvents(before, after, now)
	if err != nil {
		t.Fatal(err)
	}
	order, err := skygate.ESIMOrderEvents(&skygate.ESIMOrder{ID: "o1", AccountID: "a1", ESIMs: []*skygate.ESIM{before}}, now)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		events []*skygate.Event
		want   string
	}{
		{"booking created", created, "booking:b1"},
		{"booking issued, with its pass", issued, "booking:b1"},
		{"eSIM installed", esimEvents, "esim:" + before.ICCID},
		{"order completed", order, "esim_order:o1"},
	}
	for _, tt := range tests {
		if len(tt.events) == 0 {
			t.Errorf("%s: no events", tt.name)
		}
		for _, e := range tt.events {
			if e.OrderingKey != tt.want {
				t.Errorf("%s: %s has ordering key %q, want %q", tt.name, e.Type, e.OrderingKey, tt.want)
			}
		}
	}
	if got := skygate.BookingOrderingKey("x"); got == skygate.ESIMOrderingKey("x") || got == skygate.ESIMOrderOrderingKey("x") {
		t.Errorf("keys of different objects with one id collide: %q", got)
	}
}
