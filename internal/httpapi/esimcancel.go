package httpapi

import (
	"net/http"

	"github.com/skygate/skygate"
)

// The routes of an eSIM after its sale that concern its money and its past: the
// cancel of an unused eSIM with its refund, and the eSIM's history.

// cancelESIM cancels an unused eSIM and refunds what was paid for it: 200 with the
// eSIM, Canceled. It takes no Idempotency-Key: the cancel is idempotent by the eSIM's
// state (a Canceled eSIM answers 200 as it is and moves no money). The body may be
// left out or be an empty JSON object; any other body, null among them, is 400. 409
// InvalidESIMStatus for an eSIM that was installed, 409 RefundWindowClosed after the
// refund window the eSIM was sold with.
func (s *Server) cancelESIM(w http.ResponseWriter, r *http.Request) error {
	// A JSON null sets req to nil, where a left-out body or {} leaves it as it is.
	req := &struct{}{}
	if err := decodeOptionalJSON(w, r, &req); err != nil {
		return err
	}
	if req == nil {
		return skygate.Errorf(skygate.CodeBadRequest, "the body must be a JSON object")
	}
	w.Header().Set("Cache-Control", "no-store") // an owner's read of its eSIM, as GET
	return reply(w, http.StatusOK)(s.deps.ESIM.Cancel(r.Context(), accountIDOf(r.Context()), r.PathValue("iccid"),
		contentLanguage(w, r)))
}

// esimHistory answers a page of an eSIM's history, oldest first.
func (s *Server) esimHistory(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	return writePaged(w, r, func(p skygate.Page) (*skygate.List[*skygate.ESIMHistoryEntry], error) {
		return s.deps.ESIM.History(r.Context(), accountIDOf(r.Context()), r.PathValue("iccid"), p)
	})
}
