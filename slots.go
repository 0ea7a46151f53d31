package skygate

import (
	"context"
	"time"
)

// SlotStore reads the fast-tracks' capacity slots (BookingSlot), which bookings take
// places in and give back through BookingStore. Slots and capacities are the
// airport's, shared by every account, so no method takes an account.
type SlotStore interface {
	// SlotUsage returns the places bookings hold in the fast-track's slots that start
	// in [from, to), by start (UTC). A slot where none are held is absent.
	SlotUsage(ctx context.Context, fastTrackID string, from, to time.Time) (map[time.Time]int, error)
}

// Availability is a fast-track's capacity slots of one local date at its hub.
type Availability struct {
	FastTrackID string `json:"fast_track_id"`
	// Date is the local date, YYYY-MM-DD.
	Date string `json:"date"`
	// TimeZone is the hub's IANA time zone, in which Date and the slots' times are.
	TimeZone string             `json:"time_zone"`
	Slots    []AvailabilitySlot `json:"slots"`
}

// AvailabilitySlot is one one-hour slot: from Start to End (local "HH:MM", End
// "24:00" for the day's last), its Capacity and the places not yet taken
// (Remaining, never below 0). Price is the calling account's adult price, nil when
// it has none.
type AvailabilitySlot struct {
	Start     string `json:"start"`
	End       string `json:"end"`
	Capacity  int    `json:"capacity"`
	Remaining int    `json:"remaining"`
	Price     *Money `json:"price"`
	// At is the slot's start as an instant; not part of the JSON form.
	At time.Time `json:"-"`
}
