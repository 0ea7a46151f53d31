package httpapi

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/booking"
	"github.com/skygate/skygate/internal/idempotency"
)

// bookingPath is the collection of fast-track bookings; Location headers point below it.
const bookingPath = "/v2/b2b/booking/fast-tracks"

// createBooking accepts a booking (202). The Idempotency-Key, the booking and its
// first event are stored in one transaction; a repeated key with the same body replays
// the first answer with Idempotency-Status: reused. The checks come in the order the
// contract gives: key (400), JSON (400), known key (the stored answer or 409), unknown
// fields (400), validation (422).
func (s *Server) createBooking(w http.ResponseWriter, r *http.Request) error {
	key, err := idempotencyKey(r)
	if err != nil {
		return err
	}
	body, err := readJSONBody(w, r)
	if err != nil {
		return err
	}
	fp, err := idempotency.Fingerprint(body)
	if err != nil {
		return err
	}
	claims := principalOf(r.Context())
	var (
		b        *skygate.Booking
		replayed bool
	)
	req, err := decodeBookingRequest(body)
	if err != nil {
		// The key decides before the body is judged, as the service does for a request
		// that fails validation.
		known, lookup := s.deps.Bookings.Replay(r.Context(), claims.AccountID, key, fp)
		if skygate.IsCode(lookup, skygate.CodeNotFound) {
			return err
		}
		b, replayed, err = known, true, lookup
	} else {
		livemode, lerr := s.livemode(r)
		if lerr != nil {
			return lerr
		}
		b, replayed, err = s.deps.Bookings.Create(r.Context(), booking.CreateCommand{
			AccountID: claims.AccountID, ClientID: claims.ClientID, IdempotencyKey: key, Fingerprint: fp,
			Livemode: livemode, Request: req})
	}
	if err != nil {
		return err
	}
	w.Header().Set("Location", bookingPath+"/"+b.ID)
	return writeIdempotent(w, http.StatusAccepted, replayed, b)
}

// bookingShape is the create request's form (booking.Request): its fields, each with a
// value of its JSON type, and one passenger for all.
var bookingShape = mustShape(`{"fast_track_id":"","service_date":"","flight":{"number":"","direction":"","scheduled_at":""},
	"passengers":[{"first_name":"","last_name":"","type":"","date_of_birth":"","passport_number":"","nationality":"","email":"",
	"phone":""}],"partner_reference":"","quote_id":""}`)

// decodeBookingRequest decodes a create request (one JSON value): 400 when it is not an
// object or has unknown fields (every one named), 422 naming each field of the wrong
// JSON type, then 400 for what strict decoding refuses (a field named twice, invalid
// UTF-8), as on every other route.
func decodeBookingRequest(body []byte) (booking.Request, error) {
	var req booking.Request
	if err := checkShape(body, bookingShape); err != nil {
		return req, err
	}
	return req, unmarshalStrict(body, &req)
}

func (s *Server) getBooking(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.deps.Bookings.Get(r.Context(), accountIDOf(r.Context()), r.PathValue("bookingID")))
}

func (s *Server) listBookings(w http.ResponseWriter, r *http.Request) error {
	return writeList(w, r, func(p skygate.Page) ([]*skygate.Booking, int, error) {
		return s.deps.Bookings.List(r.Context(), accountIDOf(r.Context()), r.URL.Query().Get("status"), p)
	})
}

// confirmBooking answers 200 with the booking (cancelBooking is in bookingmoney.go); a
// booking in another status is 409 InvalidBookingStatus naming it.
func (s *Server) confirmBooking(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.deps.Bookings.Confirm(r.Context(), accountIDOf(r.Context()), r.PathValue("bookingID")))
}

// getPass answers the pass as JSON, or as a QR code PNG for Accept: image/png.
func (s *Server) getPass(w http.ResponseWriter, r *http.Request) error {
	wantPNG, err := acceptsPNG(r.Header.Get("Accept"))
	if err != nil {
		return err
	}
	if wantPNG {
		return writePNG(w)(s.deps.Bookings.PassPNG(r.Context(), accountIDOf(r.Context()), r.PathValue("bookingID")))
	}
	b, err := s.deps.Bookings.Get(r.Context(), accountIDOf(r.Context()), r.PathValue("bookingID"))
	if err != nil {
		return err
	}
	pass, err := b.BookingPass()
	if err != nil {
		return err
	}
	lang := requestLanguage(r)
	if pass.FastTrack, err = s.deps.Catalog.LocalizedFastTrack(lang, b.FastTrackID); err != nil && !skygate.IsCode(err, skygate.CodeNotFound) {
		return err
	}
	w.Header().Set("Content-Language", lang)
	w.Header().Set("Cache-Control", "private, no-store")
	return writeJSON(w, http.StatusOK, pass)
}

// acceptsPNG decides between the pass's two representations: image/png when the
// Accept header prefers it, JSON when it allows JSON (or is absent), 406 otherwise.
func acceptsPNG(accept string) (bool, error) {
	if strings.TrimSpace(accept) == "" {
		return false, nil
	}
	var qPNG, qJSON float64
	for _, part := range strings.Split(accept, ",") {
		mt, params, _ := strings.Cut(part, ";")
		q := 1.0
		for _, p := range strings.Split(params, ";") {
			if k, v, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.EqualFold(k, "q") {
				if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 && f <= 1 {
					q = f
				}
			}
		}
		switch strings.ToLower(strings.TrimSpace(mt)) {
		case "image/png":
			qPNG = max(qPNG, q)
		case "application/json":
			qJSON = max(qJSON, q)
		case "image/*":
			qPNG = max(qPNG, q*0.99)
		case "application/*", "*/*":
			qJSON = max(qJSON, q*0.99)
		}
	}
	switch {
	case qPNG > 0 && qPNG > qJSON:
		return true, nil
	case qJSON > 0:
		return false, nil
	default:
		return false, skygate.Errorf(skygate.CodeNotAcceptable, "the pass is available as application/json or image/png")
	}
}

// simulateRequest is the body of the sandbox simulate route.
type simulateRequest struct {
	Event string `json:"event"`
}

// simulateBooking triggers, for sandbox applications (or in a sandbox deployment),
// the transitions that time or the airport would trigger.
func (s *Server) simulateBooking(w http.ResponseWriter, r *http.Request) error {
	sandbox, err := s.isSandbox(r)
	if err != nil {
		return err
	}
	if !sandbox {
		return skygate.Errorf(skygate.CodeForbidden, "simulate is for sandbox applications only")
	}
	var req simulateRequest
	if _, err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	return reply(w, http.StatusOK)(s.deps.Bookings.Simulate(r.Context(), accountIDOf(r.Context()), r.PathValue("bookingID"), req.Event))
}

// adminGetBooking reads any account's booking (employees), with the names of its
// account and fast-track.
func (s *Server) adminGetBooking(w http.ResponseWriter, r *http.Request) error {
	b, err := s.deps.Bookings.AdminGet(r.Context(), r.PathValue("bookingID"))
	if err != nil {
		return err
	}
	return s.writeAdminBooking(w, r, b)
}

// adminBooking is a booking as employees read it: with its account, and the names of
// the account and of the fast-track (in English; empty when the current catalog no
// longer has it).
type adminBooking struct {
	*skygate.Booking
	AccountID     string `json:"account_id"`
	AccountName   string `json:"account_name"`
	FastTrackName string `json:"fast_track_name"`
}

// adminBookings names the bookings of account a for employees.
func (s *Server) adminBookings(a *skygate.Account, bookings ...*skygate.Booking) ([]adminBooking, error) {
	out := make([]adminBooking, len(bookings))
	names := map[string]string{}
	for i, b := range bookings {
		name, ok := names[b.FastTrackID]
		if !ok {
			ft, err := s.deps.Catalog.LocalizedFastTrack(skygate.LangEN, b.FastTrackID)
			if err != nil && skygate.ErrorCode(err) != skygate.CodeNotFound {
				return nil, err
			}
			if ft != nil {
				name = ft.Name
			}
			names[b.FastTrackID] = name
		}
		out[i] = adminBooking{Booking: b, AccountID: a.ID, AccountName: a.Name, FastTrackName: name}
	}
	return out, nil
}

// writeAdminBooking answers b with its names.
func (s *Server) writeAdminBooking(w http.ResponseWriter, r *http.Request, b *skygate.Booking) error {
	a, err := s.deps.Identity.Account(r.Context(), b.AccountID)
	if err != nil {
		return err
	}
	named, err := s.adminBookings(a, b)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, named[0])
}

// adminCompleteBooking records that the pass was used (Confirmed → Completed).
func (s *Server) adminCompleteBooking(w http.ResponseWriter, r *http.Request) error {
	b, err := s.deps.Bookings.AdminGet(r.Context(), r.PathValue("bookingID"))
	if err != nil {
		return err
	}
	audit, err := s.audit(r.Context(), "booking.complete", "booking", b.ID, b.AccountID, nil)
	if err != nil {
		return err
	}
	if b, err = s.deps.Bookings.Complete(r.Context(), b.ID, audit); err != nil {
		return err
	}
	return s.writeAdminBooking(w, r, b)
}

// adminListBookings lists one account's bookings for employees, with the names of
// the account and the fast-tracks.
func (s *Server) adminListBookings(w http.ResponseWriter, r *http.Request) error {
	return writeList(w, r, func(p skygate.Page) ([]adminBooking, int, error) {
		a, err := s.deps.Identity.Account(r.Context(), r.PathValue("accountID"))
		if err != nil {
			return nil, 0, err
		}
		items, total, err := s.deps.Bookings.List(r.Context(), a.ID, r.URL.Query().Get("status"), p)
		if err != nil {
			return nil, 0, err
		}
		named, err := s.adminBookings(a, items...)
		return named, total, err
	})
}

// writePNG answers a QR code image (a pass, an activation code): private, never cached.
func writePNG(w http.ResponseWriter) func(png []byte, err error) error {
	return func(png []byte, err error) error {
		if err != nil {
			return err
		}
		h := w.Header()
		h.Set("Content-Type", "image/png")
		h.Set("Content-Length", strconv.Itoa(len(png)))
		h.Set("Cache-Control", "private, no-store")
		_, _ = w.Write(png) //nolint:gosec // G705: a PNG the service drew, sent as image/png
		return nil
	}
}
