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
		p, err := s.deps.Prices.FastTrackPrice(r.Context(), accountIDOf(r.Context()), a.FastTrackID)
		switch {
		case err == nil:
			for i := range a.Slots {
				a.Slots[i].Price = &skygate.Money{Amount: p.Adult, Currency: p.Currency}
			}
		case !skygate.IsCode(err, skygate.CodeNotFound):
			return err
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, a)
}
