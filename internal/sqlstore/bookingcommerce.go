package sqlstore

import (
	"cmp"
	"database/sql"
	"time"

	"github.com/skygate/skygate"
)

// bookingCommerce is the stored form of a booking's commercial side, the bookings
// table's commerce column (JSON text, NULL when the booking has none of it).
type bookingCommerce struct {
	Price              *skygate.Money             `json:"price,omitempty"`
	CancellationPolicy []skygate.CancellationTerm `json:"cancellation_policy,omitempty"`
	Refund             *skygate.Money             `json:"refund,omitempty"`
	QuoteID            string                     `json:"quote_id,omitempty"`
	Slot               *storedSlot                `json:"slot,omitempty"`
}

// storedSlot is a BookingSlot without the request's capacity, which is not stored.
type storedSlot struct {
	Start  time.Time `json:"start"`
	Places int       `json:"places"`
}

// HasCommerce reports whether b has a commercial side: a price, a quote or a slot.
// Creating such a booking takes places, money or a quote in its transaction.
func HasCommerce(b *skygate.Booking) bool {
	return b.Price != nil || b.Slot != nil || b.QuoteID != "" || b.Refund != nil
}

// commerceArg returns the commerce column of b: NULL when it has none.
func commerceArg(b *skygate.Booking) (any, error) {
	if !HasCommerce(b) {
		return nil, nil
	}
	c := bookingCommerce{Price: b.Price, CancellationPolicy: b.CancellationPolicy, Refund: b.Refund, QuoteID: b.QuoteID}
	if b.Slot != nil {
		c.Slot = &storedSlot{Start: UTC(b.Slot.Start), Places: b.Slot.Places}
	}
	return JSONText(c)
}

// CommerceText is the commerce column of b as a nullable string, for a statement that
// takes it in an array.
func CommerceText(b *skygate.Booking) (*string, error) {
	v, err := commerceArg(b)
	if v == nil || err != nil {
		return nil, err
	}
	s := v.(string)
	return &s, nil
}

// commerceCol scans the commerce column into its booking.
type commerceCol struct{ b *skygate.Booking }

func (c commerceCol) Scan(src any) error {
	if src == nil {
		return nil
	}
	var v bookingCommerce
	if err := (jsonCol{&v}).Scan(src); err != nil {
		return err
	}
	c.b.Price, c.b.CancellationPolicy, c.b.Refund, c.b.QuoteID = v.Price, v.CancellationPolicy, v.Refund, v.QuoteID
	if v.Slot != nil {
		c.b.Slot = &skygate.BookingSlot{Start: v.Slot.Start, Places: v.Slot.Places}
	}
	return nil
}

var _ sql.Scanner = commerceCol{}

// CompareSlots orders bookings by the slot they hold places in (fast-track, then
// start; none first): the order in which a transaction locks slots.
func CompareSlots(a, b *skygate.Booking) int {
	if c := cmp.Compare(a.FastTrackID, b.FastTrackID); c != 0 {
		return c
	}
	var sa, sb time.Time
	if a.Slot != nil {
		sa = a.Slot.Start
	}
	if b.Slot != nil {
		sb = b.Slot.Start
	}
	return sa.Compare(sb)
}

// CompareBalances orders bookings by the balance their money moves in (account, then
// the price's currency; none first): the order in which a transaction locks balances.
func CompareBalances(a, b *skygate.Booking) int {
	if c := cmp.Compare(a.AccountID, b.AccountID); c != 0 {
		return c
	}
	var ca, cb string
	if a.Price != nil {
		ca = a.Price.Currency
	}
	if b.Price != nil {
		cb = b.Price.Currency
	}
	return cmp.Compare(ca, cb)
}
