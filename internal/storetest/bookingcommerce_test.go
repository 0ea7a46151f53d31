package storetest

import (
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// bookingCommerceTests cover the commercial side of a booking as stored: its price,
// cancellation policy, quote, slot and refund.
var bookingCommerceTests = []test{
	{"RoundTrip", testBookingCommerceRoundTrip},
	{"RefundWritten", testBookingCommerceRefund},
}

// WithCommerce gives a booking a price of amount EUR, a two-tier policy and a slot of its passengers at 10:00 on its service date (UTC), capacity 1000.
func WithCommerce(amount int64) func(*skygate.Booking) {
	return func(b *skygate.Booking) {
		price := skygate.Money{Amount: amount, Currency: "EUR"}
		start := time.Date(2025, 3, 20, 10, 0, 0, 0, time.UTC)
		b.Price = &price
		b.CancellationPolicy = []skygate.CancellationTerm{
			{Until: start.Add(-24 * time.Hour), RefundPercent: 100, Refund: price},
			{Until: start.Add(-2 * time.Hour), RefundPercent: 50, Refund: skygate.Money{Amount: amount / 2, Currency: "EUR"}},
		}
		b.Slot = &skygate.BookingSlot{Start: start, Places: skygate.Places(b.Passengers), Capacity: 1000}
	}
}

func testBookingCommerceRoundTrip(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	plain := MustCreateBooking(t, s, acc.ID)
	if got := MustBooking(t, s, acc.ID, plain.ID); got.Price != nil || got.Slot != nil || got.QuoteID != "" || got.CancellationPolicy != nil {
		t.Fatalf("a booking without commerce reads back with some: %+v", got)
	}
	MustCredit(t, s, acc.ID, 4500, "EUR") // a priced booking reserves its price
	b := NewBooking(acc.ID, WithCommerce(4500))
	b.QuoteID = MustCreateQuote(t, s, QuoteFor(b, T0)).ID
	_, err := s.CreateBooking(t.Context(), NewRecord(b, "k", "fp"), b, nil)
	MustNoError(t, err, "CreateBooking")
	want := b.Clone()      // as the store normalised it
	want.Slot.Capacity = 0 // the request's capacity is not stored
	wantEqual(t, "booking with commerce", MustBooking(t, s, acc.ID, b.ID), want)
}

func testBookingCommerceRefund(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	MustCredit(t, s, acc.ID, 4500, "EUR")
	b := NewBooking(acc.ID, WithCommerce(4500))
	_, err := s.CreateBooking(t.Context(), NewRecord(b, "k", "fp"), b, nil)
	MustNoError(t, err, "CreateBooking")
	refund := func(before, after *skygate.Booking) ([]*skygate.Event, error) {
		after.Refund = &skygate.Money{Amount: 2250, Currency: "EUR"}
		return nil, nil
	}
	got, err := s.TransitionBooking(t.Context(), acc.ID, b.ID, skygate.TriggerCancel, At(time.Minute), refund)
	MustNoError(t, err, "TransitionBooking")
	wantEqual(t, "refund", *got.Refund, skygate.Money{Amount: 2250, Currency: "EUR"})
	wantEqual(t, "stored", MustBooking(t, s, acc.ID, b.ID), got)
}
