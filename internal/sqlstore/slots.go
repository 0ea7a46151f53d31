package sqlstore

import (
	"github.com/skygate/skygate"
)

// SlotFull is the error of a booking whose places do not fit in its slot.
func SlotFull(b *skygate.Booking) error {
	return skygate.Errorf(skygate.CodeSlotFull, "the fast-track's slot starting %s has fewer than %d places left",
		UTC(b.Slot.Start).Format("2006-01-02T15:04Z"), b.Slot.Places)
}

// TakesPlaces reports whether creating b takes places in a slot: it names one and
// some of its passengers take a place.
func TakesPlaces(b *skygate.Booking) bool { return b.Slot != nil && b.Slot.Places > 0 }

// ReturnsPlaces reports whether the transition from before to after gives the
// places before holds back: a booking that ends unused (Expired or Canceled) from
// Pending, Issued or Confirmed. A Completed booking keeps them: its passengers came.
func ReturnsPlaces(before, after *skygate.Booking) bool {
	if !TakesPlaces(before) {
		return false
	}
	switch before.Status {
	case skygate.BookingPending, skygate.BookingIssued, skygate.BookingConfirmed:
	default:
		return false
	}
	return after.Status == skygate.BookingExpired || after.Status == skygate.BookingCanceled
}
