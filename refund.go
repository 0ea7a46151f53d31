package skygate

// This file holds the money side of cancelling a booking: the cancellation terms a
// booking gets at create and the refund a cancellation gives at a given time.

import (
	"slices"
	"time"
)

// CancellationTerms renders a fast-track's cancellation rules (CancellationRule) for a
// booking of price whose flight is scheduled at scheduled: one term per rule, Until
// HoursBefore hours before scheduled and Refund RefundPercent of price rounded down
// to the minor unit, earliest Until first (CancellationTerm). No rules give no terms.
func CancellationTerms(rules []CancellationRule, scheduled time.Time, price Money) []CancellationTerm {
	if len(rules) == 0 {
		return nil
	}
	terms := make([]CancellationTerm, len(rules))
	for i, r := range rules {
		terms[i] = CancellationTerm{
			Until:         scheduled.Add(-time.Duration(r.HoursBefore) * time.Hour).UTC(),
			RefundPercent: r.RefundPercent,
			Refund:        Money{Amount: price.Amount * int64(r.RefundPercent) / 100, Currency: price.Currency},
		}
	}
	slices.SortStableFunc(terms, func(a, b CancellationTerm) int { return a.Until.Compare(b.Until) })
	return terms
}

// RefundAt returns what cancelling b at now gives back (refund) and what the account
// pays for it (fee), in b's price currency:
//
//   - Pending or Issued: the whole price (it was only reserved), no fee;
//   - Confirmed: the Refund of the first of b's CancellationPolicy terms whose Until is
//     not before now (a cancel exactly at Until is still "at least hours_before hours
//     before" the flight), none after the last term; the fee is the rest of the price;
//   - Completed: nothing back (the pass was used), the whole price is the fee;
//   - Expired: nothing back and no fee: the expiry already released the reservation.
//
// ok is false when a cancellation gives no refund at all: b has no price, or it is
// Canceled already (which Transition refuses).
func (b *Booking) RefundAt(now time.Time) (refund, fee Money, ok bool) {
	if b.Price == nil || b.Status == BookingCanceled {
		return Money{}, Money{}, false
	}
	price := *b.Price
	zero := Money{Currency: price.Currency}
	switch b.Status {
	case BookingPending, BookingIssued:
		return price, zero, true
	case BookingConfirmed:
		refund = zero
		for _, t := range b.CancellationPolicy {
			if !now.After(t.Until) {
				refund = t.Refund
				break
			}
		}
		return refund, Money{Amount: price.Amount - refund.Amount, Currency: price.Currency}, true
	case BookingCompleted:
		return zero, price, true
	case BookingExpired:
		return zero, zero, true
	}
	return Money{}, Money{}, false
}

// CancellationQuote is what cancelling a booking would give back and cost as of a
// time (GET …/{bookingID}/cancellation). Both are nil for a booking without a price:
// its cancellation moves no money.
type CancellationQuote struct {
	Refund *Money `json:"refund"`
	Fee    *Money `json:"fee"`
}
