package booking_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/storetest"
)

// MustConfirmed creates a priced booking, issues and confirms it.
func (b *bundle) MustConfirmed(tb testing.TB) *skygate.Booking {
	tb.Helper()
	created := b.MustCreate(tb, pricedRequest())
	b.MustRun(tb)
	got, err := b.svc.Confirm(tb.Context(), b.account, created.ID)
	storetest.MustNoError(tb, err, "Confirm")
	return got
}

func TestCancelRefunds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// at is when the cancel happens, before the flight (flightAt).
		before    time.Duration
		confirmed bool
		refund    skygate.Money
	}{
		{"PendingWholePrice", time.Hour, false, usd(8750)},
		{"ConfirmedEarly", 30 * time.Hour, true, usd(8750)},
		{"ConfirmedHalf", 10 * time.Hour, true, usd(4375)},
		{"ConfirmedLate", time.Hour, true, usd(0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.withPrices(t)
			var booked *skygate.Booking
			if tt.confirmed {
				booked = b.MustConfirmed(t)
			} else {
				booked = b.MustCreate(t, pricedRequest())
			}
			b.clock.Advance(flightAt.Add(-tt.before).Sub(b.clock.Now()))
			quote, err := b.svc.Cancellation(t.Context(), b.account, booked.ID)
			storetest.MustNoError(t, err, "Cancellation")
			if *quote.Refund != tt.refund || quote.Fee.Amount != 8750-tt.refund.Amount || quote.Fee.Currency != "USD" {
				t.Errorf("cancellation quote %+v / %+v, want refund %+v", *quote.Refund, *quote.Fee, tt.refund)
			}
			// An expected refund other than the current one changes nothing.
			wrong := usd(tt.refund.Amount + 1)
			_, err = b.svc.CancelExpecting(t.Context(), b.account, booked.ID, &wrong)
			storetest.WantCode(t, err, skygate.CodeRefundChanged)
			var e *skygate.Error
			if !errors.As(err, &e) || e.Refund == nil || *e.Refund != tt.refund {
				t.Errorf("RefundChanged carries %+v, want %+v", e, tt.refund)
			}
			still, err := b.svc.Get(t.Context(), b.account, booked.ID)
			storetest.MustNoError(t, err, "Get")
			if still.Status != booked.Status || still.Refund != nil {
				t.Errorf("after RefundChanged: %s, refund %+v", still.Status, still.Refund)
			}
			got, err := b.svc.CancelExpecting(t.Context(), b.account, booked.ID, &tt.refund)
			storetest.MustNoError(t, err, "CancelExpecting")
			if got.Status != skygate.BookingCanceled || got.Refund == nil || *got.Refund != tt.refund {
				t.Errorf("canceled %s with refund %+v, want %+v", got.Status, got.Refund, tt.refund)
			}
			_, err = b.svc.Cancellation(t.Context(), b.account, booked.ID)
			storetest.WantCode(t, err, skygate.CodeInvalidBookingStatus)
		})
	}
}

func TestCancelUnpriced(t *testing.T) {
	t.Parallel()
	b := setup(t)
	booked := b.MustCreate(t, request())
	quote, err := b.svc.Cancellation(t.Context(), b.account, booked.ID)
	storetest.MustNoError(t, err, "Cancellation")
	if quote.Refund != nil || quote.Fee != nil {
		t.Errorf("an unpriced booking's cancellation quote %+v, want nulls", quote)
	}
	got, err := b.svc.Cancel(t.Context(), b.account, booked.ID)
	storetest.MustNoError(t, err, "Cancel")
	if got.Refund != nil {
		t.Errorf("an unpriced booking got refund %+v", got.Refund)
	}
}

// TestCancelUnpricedExpecting: an unpriced booking's cancel refunds nothing, which an
// expected_refund of 0 in any currency states; any other amount is RefundChanged
// without a refund, and the booking stays as it was.
func TestCancelUnpricedExpecting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		expected skygate.Money
		cancels  bool
	}{
		{"ZeroUSD", usd(0), true},
		{"ZeroOtherCurrency", skygate.Money{Currency: "EUR"}, true},
		{"OneMinorUnit", usd(1), false},
		{"Large", usd(8750), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			booked := b.MustCreate(t, request())
			got, err := b.svc.CancelExpecting(t.Context(), b.account, booked.ID, &tt.expected)
			if tt.cancels {
				storetest.MustNoError(t, err, "CancelExpecting")
				if got.Status != skygate.BookingCanceled || got.Refund != nil {
					t.Errorf("canceled %s with refund %+v, want Canceled without a refund", got.Status, got.Refund)
				}
				return
			}
			storetest.WantCode(t, err, skygate.CodeRefundChanged)
			var e *skygate.Error
			if !errors.As(err, &e) || e.Refund != nil {
				t.Errorf("RefundChanged of an unpriced booking carries %+v, want no refund", e)
			}
			still, err := b.svc.Get(t.Context(), b.account, booked.ID)
			storetest.MustNoError(t, err, "Get")
			if still.Status != booked.Status {
				t.Errorf("after RefundChanged: %s, want %s", still.Status, booked.Status)
			}
		})
	}
}

func TestCancelExpectingValidates(t *testing.T) {
	t.Parallel()
	b := setup(t)
	booked := b.MustCreate(t, request())
	for name, m := range map[string]skygate.Money{
		"expected_refund.amount":   {Amount: -1, Currency: "USD"},
		"expected_refund.currency": {Amount: 1, Currency: "usd"},
	} {
		_, err := b.svc.CancelExpecting(t.Context(), b.account, booked.ID, &m)
		wantField(t, err, name)
	}
	_, err := b.svc.Cancellation(t.Context(), b.other, booked.ID)
	storetest.WantCode(t, err, skygate.CodeNotFound)
}

// TestCancelEventCarriesRefund: the booking.status.changed of a cancel carries the
// refund, as the webhook booking payload does.
func TestCancelEventCarriesRefund(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.withPrices(t)
	booked := b.MustCreate(t, pricedRequest())
	_, err := b.svc.Cancel(t.Context(), b.account, booked.ID)
	storetest.MustNoError(t, err, "Cancel")
	events, err := b.store.EventsAfter(t.Context(), 0, 0)
	storetest.MustNoError(t, err, "EventsAfter")
	last := events[len(events)-1]
	var data skygate.BookingStatusChanged
	storetest.MustNoError(t, json.Unmarshal(last.Data, &data), "decode event")
	if data.Booking == nil || data.Booking.Refund == nil || *data.Booking.Refund != usd(8750) || *data.Booking.Price != usd(8750) {
		t.Errorf("event booking %+v, want price and refund 87.50 USD", data.Booking)
	}
}
