package httpapi

import (
	"net/http"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/catalog"
	"github.com/skygate/skygate/internal/pricing"
)

// The admin side of fast-track commerce (accounts' price lists, the airport's
// capacities per slot) and the fast-track catalog with the caller's prices.

// priceListBody is the body of both price list routes.
type priceListBody struct {
	Data      []skygate.FastTrackPrice `json:"data"`
	UpdatedAt *time.Time               `json:"updated_at"`
}

func priceListOf(l *skygate.PriceList, err error) (*priceListBody, error) {
	if err != nil {
		return nil, err
	}
	return &priceListBody{Data: l.Prices, UpdatedAt: l.UpdatedAt}, nil
}

func (s *Server) adminFastTrackPrices(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(priceListOf(s.deps.Prices.Prices(r.Context(), r.PathValue("accountID"))))
}

// adminSetFastTrackPrices replaces the account's whole price list; [] removes it.
func (s *Server) adminSetFastTrackPrices(w http.ResponseWriter, r *http.Request) error {
	var items []*pricing.PriceInput
	if _, err := decodeJSON(w, r, &items); err != nil {
		return err
	}
	acc := r.PathValue("accountID")
	// The store gives the record the list replaced and the list stored.
	audit, err := s.audit(r.Context(), "fast_track.prices.set", "account", acc, acc, nil)
	if err != nil {
		return err
	}
	return reply(w, http.StatusOK)(priceListOf(s.deps.Prices.SetPrices(r.Context(), acc, items, audit)))
}

// adminFastTracks lists every fast-track of the catalog for employees, whose tokens
// cannot read the partner catalog: names in the negotiated language, capacities.
func (s *Server) adminFastTracks(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	list, err := s.deps.Prices.FastTracks(r.Context(), contentLanguage(w, r))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, struct {
		Data []pricing.AdminFastTrack `json:"data"`
	}{list})
}

func (s *Server) adminFastTrackCapacity(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.deps.Prices.Capacity(r.Context(), r.PathValue("fastTrackID")))
}

// adminSetFastTrackCapacity sets a fast-track's capacity per slot for every account.
func (s *Server) adminSetFastTrackCapacity(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		CapacityPerSlot *int `json:"capacity_per_slot"`
	}
	if _, err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	if req.CapacityPerSlot == nil {
		return skygate.ValidationError(skygate.FieldError{Field: "capacity_per_slot", Message: "is required"})
	}
	id := r.PathValue("fastTrackID")
	audit, err := s.audit(r.Context(), "fast_track.capacity.set", "fast_track", id, "", map[string]any{"capacity_per_slot": *req.CapacityPerSlot})
	if err != nil {
		return err
	}
	return reply(w, http.StatusOK)(s.deps.Prices.SetCapacity(r.Context(), id, *req.CapacityPerSlot, audit))
}

// adminResetFastTrackCapacity removes the admin's capacity of a fast-track: the
// catalog's applies again.
func (s *Server) adminResetFastTrackCapacity(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("fastTrackID")
	audit, err := s.audit(r.Context(), "fast_track.capacity.reset", "fast_track", id, "", nil)
	if err != nil {
		return err
	}
	return reply(w, http.StatusOK)(s.deps.Prices.ResetCapacity(r.Context(), id, audit))
}

// fastTrackList serves a page of fast-tracks with the caller's prices.
func (s *Server) fastTrackList(w http.ResponseWriter, r *http.Request) error {
	q, err := catalog.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return err
	}
	page, err := s.deps.Prices.FastTrackList(r.Context(), accountIDOf(r.Context()), requestLanguage(r), q)
	if err != nil {
		return err
	}
	return writePage(w, r, page)
}

// fastTrackItem serves one fast-track with the caller's price.
func (s *Server) fastTrackItem(w http.ResponseWriter, r *http.Request) error {
	page, err := s.deps.Prices.FastTrackItem(r.Context(), accountIDOf(r.Context()), requestLanguage(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	return writePage(w, r, page)
}
