package booking

import (
	"context"
	"time"

	"github.com/skygate/skygate"
)

// CancelExpecting is Cancel for a partner that expects the refund expected (nil: any).
// When expected is given and differs from the refund at the cancel (RefundAt at the
// transition time, checked inside the transition so that it is atomic with the
// cancel), the booking is left as it is and the error is CodeRefundChanged carrying
// the current refund (nil for a booking without a price, whose cancellation refunds
// nothing). For a booking without a price an expected amount of 0, in any currency,
// is that nothing and cancels; any other amount is CodeRefundChanged. A malformed
// expected is CodeValidation on expected_refund.
func (s *Service) CancelExpecting(ctx context.Context, accountID, bookingID string, expected *skygate.Money) (*skygate.Booking, error) {
	if expected != nil {
		var v validation
		if expected.Amount < 0 || expected.Amount > skygate.MaxMoneyAmount {
			v.fail("expected_refund.amount", "must be an amount in minor units, 0 or more")
		}
		if !skygate.IsCurrency(expected.Currency) {
			v.fail("expected_refund.currency", "must be an ISO 4217 currency code such as USD")
		}
		if len(v) > 0 {
			return nil, skygate.ValidationError(v...)
		}
	}
	if !skygate.IsID(bookingID) {
		return nil, notFound()
	}
	apply := s.apply
	if expected != nil {
		apply = func(before, after *skygate.Booking) ([]*skygate.Event, error) {
			if err := refundIs(before, after.UpdatedAt, *expected); err != nil {
				return nil, err
			}
			return s.apply(before, after)
		}
	}
	return s.store.TransitionBooking(ctx, accountID, bookingID, skygate.TriggerCancel, s.now(), apply)
}

// refundIs returns CodeRefundChanged unless cancelling b at now refunds expected. A
// booking without a price refunds nothing, which an expected amount of 0 states in any
// currency (the booking has none to compare with).
func refundIs(b *skygate.Booking, now time.Time, expected skygate.Money) error {
	refund, _, ok := b.RefundAt(now)
	if ok && refund == expected {
		return nil
	}
	if !ok && b.Price == nil && expected.Amount == 0 {
		return nil
	}
	e := skygate.Errorf(skygate.CodeRefundChanged, "the refund is not the expected_refund; nothing was canceled")
	if ok {
		e.Refund = &refund
	} else {
		e.Message = "the booking has no price, so its cancellation refunds nothing (expect an amount of 0); nothing was canceled"
	}
	return e
}

// Cancellation returns what cancelling the account's booking would refund and cost
// now (skygate.Booking.RefundAt): both nil for a booking without a price. A booking
// that cannot be canceled (Canceled) is CodeInvalidBookingStatus, as its cancel is.
func (s *Service) Cancellation(ctx context.Context, accountID, bookingID string) (*skygate.CancellationQuote, error) {
	b, err := s.Get(ctx, accountID, bookingID)
	if err != nil {
		return nil, err
	}
	if _, err := skygate.Transition(b.Status, skygate.TriggerCancel); err != nil {
		return nil, err
	}
	refund, fee, ok := b.RefundAt(s.now())
	if !ok {
		return &skygate.CancellationQuote{}, nil
	}
	return &skygate.CancellationQuote{Refund: &refund, Fee: &fee}, nil
}
