package httpapi

import (
	"net/http"

	"github.com/skygate/skygate"
)

// getAvailability serves a fast-track's slot availability of the query's date
// (booking.Service.Availability), each slot priced at the calling account's adult
// price when it has one (Deps.Prices). It is never cached: every booking changes it.
func (s *Server) getAvailability(w http.ResponseWriter, r *http.Request) error {
	a, err := s.deps.Bookings.Availability(r.Context(), r.PathValue("id"), r.URL.Query().Get("date"))
	if err != nil {
		return err
	}
	if s.deps.Prices != nil {
		price, err := s.deps.Prices.AdultPrice(r.Context(), accountIDOf(r.Context()), a.FastTrackID)
		if err != nil {
			return err
		}
		for i := range a.Slots {
			a.Slots[i].Price = clonePrice(price)
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, a)
}

// clonePrice returns a copy of p (nil for nil), so that slots do not share one.
func clonePrice(p *skygate.Money) *skygate.Money {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}
