package httpapi

import (
	"net/http"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/booking"
)

// The money side of fast-track bookings: quotes, the refund quote and a cancel that
// names the refund it expects.

// cancelRequest is the optional body of cancel.
type cancelRequest struct {
	// ExpectedRefund, when sent, makes the cancel refuse (409 RefundChanged) unless
	// the refund at the cancel is exactly this.
	ExpectedRefund *skygate.Money `json:"expected_refund"`
}

// cancelBooking answers 200 with the canceled booking (with its refund when priced);
// a booking in another status is 409 InvalidBookingStatus naming it. The body may be
// left out (as before it existed) or name expected_refund.
func (s *Server) cancelBooking(w http.ResponseWriter, r *http.Request) error {
	var req cancelRequest
	if err := decodeOptionalJSON(w, r, &req); err != nil {
		return err
	}
	return reply(w, http.StatusOK)(s.deps.Bookings.CancelExpecting(r.Context(), accountIDOf(r.Context()),
		r.PathValue("bookingID"), req.ExpectedRefund))
}

// getCancellation answers what cancelling the booking would refund and cost now: both
// null for a booking without a price; 409 InvalidBookingStatus for one already
// canceled. The answer changes with time, so it is never cached.
func (s *Server) getCancellation(w http.ResponseWriter, r *http.Request) error {
	q, err := s.deps.Bookings.Cancellation(r.Context(), accountIDOf(r.Context()), r.PathValue("bookingID"))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, q)
}

// createQuote prices a create request without booking it (201 with the quote). It
// takes no Idempotency-Key: a quote books nothing and holds no money or places, so a
// retried request that made two quotes did no harm; the unused one expires.
func (s *Server) createQuote(w http.ResponseWriter, r *http.Request) error {
	body, err := readJSONBody(w, r)
	if err != nil {
		return err
	}
	req, err := decodeBookingRequest(body)
	if err != nil {
		return err
	}
	claims := principalOf(r.Context())
	q, err := s.deps.Bookings.Quote(r.Context(), booking.QuoteCommand{AccountID: claims.AccountID, ClientID: claims.ClientID, Request: req})
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusCreated, q)
}
