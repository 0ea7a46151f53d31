package skygate

// This file holds the account's prepaid ledger as fast-track bookings and eSIMs share
// it: balances with their reserved part, the ledger lines each booking transition
// writes, the low-balance thresholds and their event. The tables are the eSIM
// billing's (esim_balances, esim_ledger): one balance per account and currency.

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// Balance is an account's money in one currency. Amount is what is available to spend
// (credits − charges + refunds − live reservations); Reserved is the sum of the prices
// of its priced bookings that are Pending or Issued, which left Amount when they were
// created and return to it when they end.
type Balance struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
	Reserved int64  `json:"reserved"`
}

// LedgerMove is one ledger line a booking's change writes: Amount is the signed change
// of the available amount (Kind's sign) and Reserved the change of the reserved one.
type LedgerMove struct {
	Kind     LedgerKind
	Amount   Money
	Reserved int64
}

// BookingLedgerMoves returns the ledger lines of a booking going from before to after
// (before nil: after's creation), in the order they are written. Only a booking with
// a price above zero moves money:
//
//   - creation: a reservation of the price (−price, reserved +price);
//   - Pending/Issued → Confirmed: a release (+price, reserved −price), then a charge
//     (−price): net zero on the available amount;
//   - Pending/Issued → Expired/Canceled: a release of the price;
//   - Confirmed/Completed → Canceled: a refund of after.Refund, none when it is nil or
//     zero.
//
// Every other change, and any change of a booking without a price, writes nothing.
//
// The stores write these lines inside the transaction of the change: BookingStore's
// CreateBooking fails with CodeInsufficientFunds, keeping nothing (not even the
// idempotency key), when the available amount does not cover the reservation, and
// writes billing.balance.low when the reservation crosses the account's threshold
// (BalanceLowEvents); TransitionBooking and ClaimBookings write the rest.
func BookingLedgerMoves(before, after *Booking) []LedgerMove {
	b := before
	if b == nil {
		b = after
	}
	if b.Price == nil || b.Price.Amount <= 0 {
		return nil
	}
	price := *b.Price
	neg := Money{Amount: -price.Amount, Currency: price.Currency}
	release := LedgerMove{Kind: LedgerRelease, Amount: price, Reserved: -price.Amount}
	if before == nil {
		return []LedgerMove{{Kind: LedgerReservation, Amount: neg, Reserved: price.Amount}}
	}
	if before.Status == after.Status {
		return nil
	}
	switch before.Status {
	case BookingPending, BookingIssued:
		switch after.Status {
		case BookingConfirmed:
			return []LedgerMove{release, {Kind: LedgerCharge, Amount: neg}}
		case BookingExpired, BookingCanceled:
			return []LedgerMove{release}
		}
	case BookingConfirmed, BookingCompleted:
		if after.Status == BookingCanceled && after.Refund != nil && after.Refund.Amount > 0 {
			return []LedgerMove{{Kind: LedgerRefund, Amount: *after.Refund}}
		}
	}
	return nil
}

// BookingLedgerDescription is the description of a booking's ledger line.
func BookingLedgerDescription(kind LedgerKind, b *Booking) string {
	return fmt.Sprintf("fast-track booking %s: %s", b.FastTrackID, kind)
}

// BillingSettings are an account's billing preferences: LowBalanceThresholds holds at
// most one amount per currency; a debit that takes the available amount of that
// currency from at least the threshold to below it writes billing.balance.low. They
// are ordered by currency.
type BillingSettings struct {
	LowBalanceThresholds []Money `json:"low_balance_thresholds"`
}

// Validate returns the problems of s as a partner sends it.
func (s *BillingSettings) Validate() []FieldError {
	var errs []FieldError
	seen := map[string]bool{}
	for i, t := range s.LowBalanceThresholds {
		field := "low_balance_thresholds[" + strconv.Itoa(i) + "]"
		if t.Amount < 0 || t.Amount > MaxMoneyAmount {
			errs = append(errs, FieldError{Field: field + ".amount", Message: "must be between 0 and 1000000000000 minor units"})
		}
		switch {
		case !IsCurrency(t.Currency):
			errs = append(errs, FieldError{Field: field + ".currency", Message: "must be an ISO 4217 code such as USD"})
		case seen[t.Currency]:
			errs = append(errs, FieldError{Field: field + ".currency", Message: "is listed twice"})
		}
		seen[t.Currency] = true
	}
	return errs
}

// MaxLowBalanceThresholds bounds the thresholds of one account.
const MaxLowBalanceThresholds = 50

// EventBillingBalanceLow is the type of the event a debit writes when it takes an
// available amount below its threshold.
const EventBillingBalanceLow = "billing.balance.low"

// BalanceLowData is the data of billing.balance.low: the available amount in Currency
// fell to Balance, below Threshold, with the debit that wrote the event.
type BalanceLowData struct {
	Currency  string `json:"currency"`
	Balance   int64  `json:"balance"`
	Threshold int64  `json:"threshold"`
}

// BalanceOrderingKey is the ordering key of an account's billing events in one
// currency: every debit of the balance locks its row, so the events are written in the
// order of the debits.
func BalanceOrderingKey(currency string) string { return "balance:" + currency }

// BalanceLowEvents returns billing.balance.low when a debit took the account's
// available amount from before to after across threshold (before ≥ threshold > after),
// none otherwise: once per crossing, and a credit that lifts the amount again re-arms
// it. livemode is the Livemode of what the debit paid for.
func BalanceLowEvents(accountID, currency string, before, after, threshold int64, livemode bool, now time.Time) ([]*Event, error) {
	if before < threshold || after >= threshold {
		return nil, nil
	}
	e, err := NewEvent(accountID, EventBillingBalanceLow, livemode,
		BalanceLowData{Currency: currency, Balance: after, Threshold: threshold}, now)
	if err != nil {
		return nil, err
	}
	e.OrderingKey = BalanceOrderingKey(currency)
	return []*Event{e}, nil
}

// BillingStore keeps the billing side every account shares between bookings and eSIMs
// beyond ESIMStore's balances and ledger: the low-balance settings and the monthly
// statement. Every method takes the account id.
type BillingStore interface {
	// BillingSettings returns the account's settings (no thresholds when never set).
	BillingSettings(ctx context.Context, accountID string) (*BillingSettings, error)
	// SetBillingSettings replaces the account's settings with s (valid) at now and
	// returns them as stored, thresholds ordered by currency. Concurrent calls for one
	// account all succeed, one after the other: the last to commit wins. An unknown
	// account is CodeNotFound.
	SetBillingSettings(ctx context.Context, accountID string, s *BillingSettings, now time.Time) (*BillingSettings, error)
	// LedgerBetween returns a page of the account's ledger lines created in [from, to):
	// at most limit (at least 1) lines that come after the line numbered after in the
	// ledger's order (0 before the first), oldest first, and the number of the last
	// one returned (after when none), which is the after of the next page. A page
	// shorter than limit is the last. Lines committed while the pages are read may be
	// missing from a month in progress, as from any read of it.
	LedgerBetween(ctx context.Context, accountID string, from, to time.Time, after int64, limit int) ([]*LedgerEntry, int64, error)
}
