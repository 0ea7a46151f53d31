package httpapi

import (
	"net/http"

	"github.com/skygate/skygate"
)

// eSIM settings routes: the account's usage thresholds, which decide when
// esim.usage.threshold is sent. They follow the billing settings' conventions
// (billing.go): a JSON body naming the whole list, the settings as stored in the
// answer, never cached.

// esimSettings answers the account's eSIM settings.
func (s *Server) esimSettings(w http.ResponseWriter, r *http.Request) error {
	set, err := s.deps.ESIM.ESIMSettings(r.Context(), accountIDOf(r.Context()))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, set)
}

// patchESIMSettings replaces the settings the body names: usage_thresholds (the
// whole list, required, every problem at once in a 422).
func (s *Server) patchESIMSettings(w http.ResponseWriter, r *http.Request) error {
	var req skygate.ESIMSettings
	if _, err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	set, err := s.deps.ESIM.SetESIMSettings(r.Context(), accountIDOf(r.Context()), &req)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, set)
}
