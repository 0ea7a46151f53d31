package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/web"
)

// problem is the RFC 9457 body of every error response.
type problem struct {
	Type      string               `json:"type"`
	Title     string               `json:"title"`
	Status    int                  `json:"status"`
	Detail    string               `json:"detail,omitempty"`
	Code      string               `json:"code"`
	RequestID string               `json:"request_id,omitempty"`
	Errors    []skygate.FieldError `json:"errors,omitempty"`
	// BookingStatus is the booking's status in an InvalidBookingStatus problem.
	BookingStatus skygate.BookingStatus `json:"booking_status,omitempty"`
	// Refund is the refund a cancel gives now, in a RefundChanged problem (absent for
	// a booking without a price).
	Refund *skygate.Money `json:"refund,omitempty"`
}

// statusOf maps each domain code to its one HTTP status.
var statusOf = map[string]int{
	skygate.CodeBadRequest:                http.StatusBadRequest,
	skygate.CodeValidation:                http.StatusUnprocessableEntity,
	skygate.CodeUnauthorized:              http.StatusUnauthorized,
	skygate.CodeClientCertificateRequired: http.StatusUnauthorized,
	skygate.CodeInsufficientScope:         http.StatusForbidden,
	skygate.CodeForbidden:                 http.StatusForbidden,
	skygate.CodeNotFound:                  http.StatusNotFound,
	skygate.CodeMethodNotAllowed:          http.StatusMethodNotAllowed,
	skygate.CodeNotAcceptable:             http.StatusNotAcceptable,
	skygate.CodeConflict:                  http.StatusConflict,
	skygate.CodeIdempotencyConflict:       http.StatusConflict,
	skygate.CodeIdempotencyInProgress:     http.StatusConflict,
	skygate.CodeInvalidBookingStatus:      http.StatusConflict,
	skygate.CodePassNotReady:              http.StatusConflict,
	skygate.CodeWebhookExists:             http.StatusConflict,
	skygate.CodePoolExhausted:             http.StatusConflict,
	skygate.CodeInsufficientFunds:         http.StatusPaymentRequired,
	skygate.CodeSlotFull:                  http.StatusConflict,
	skygate.CodeInvalidESIMStatus:         http.StatusConflict,
	skygate.CodeRefundWindowClosed:        http.StatusConflict,
	skygate.CodeRefundChanged:             http.StatusConflict,
	skygate.CodeQuoteUsed:                 http.StatusConflict,
	skygate.CodeQuoteExpired:              http.StatusUnprocessableEntity,
	skygate.CodeCursorExpired:             http.StatusGone,
	skygate.CodePayloadTooLarge:           http.StatusRequestEntityTooLarge,
	skygate.CodeUnsupportedMediaType:      http.StatusUnsupportedMediaType,
	skygate.CodeRateLimited:               http.StatusTooManyRequests,
	skygate.CodeUnavailable:               http.StatusServiceUnavailable,
	skygate.CodeInternal:                  http.StatusInternalServerError,
}

// problemTypeBase returns the prefix of the type URI of every problem: the service's
// documentation, which has a page for every code the OpenAPI document lists
// (web.DocsHandler). Without a public URL the type is a path of this server.
func problemTypeBase(publicURL string) string {
	return strings.TrimSuffix(publicURL, "/") + web.DocsPrefix + "/problems/"
}

// writeError turns err into a problem+json response. Internal errors are logged with
// their cause and answered with a fixed text; known errors are logged at debug level.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	code := skygate.ErrorCode(err)
	if code == skygate.CodeInternal && s.deps.Transient != nil && s.deps.Transient(err) {
		// The database is restarting or unreachable: a retry will do.
		w.Header().Set("Retry-After", "1")
		s.log.WarnContext(r.Context(), "database unavailable", "err", s.redact(r, err.Error()), "request_id", requestIDOf(r.Context()))
		err = &skygate.Error{Code: skygate.CodeUnavailable, Message: "the service is temporarily unavailable; retry shortly", Err: err}
		code = skygate.CodeUnavailable
	}
	status, ok := statusOf[code]
	if !ok {
		status = http.StatusInternalServerError
	}
	p := problem{
		Type:      s.problemBase + code,
		Title:     http.StatusText(status),
		Status:    status,
		Detail:    skygate.ErrorMessage(err),
		Code:      code,
		RequestID: requestIDOf(r.Context()),
	}
	var e *skygate.Error
	if errors.As(err, &e) {
		p.Errors, p.BookingStatus, p.Refund = e.Fields, e.BookingStatus, e.Refund
	}
	var ae *authError
	if errors.As(err, &ae) {
		w.Header().Set("WWW-Authenticate", ae.challenge)
	}
	var ra retryAfter
	if errors.As(err, &ra) {
		w.Header().Set("Retry-After", strconv.Itoa(ra.RetryAfterSeconds()))
	}
	if status >= 500 {
		s.log.ErrorContext(r.Context(), "request failed", "err", s.redact(r, err.Error()), "request_id", p.RequestID)
	}
	writeProblem(w, p)
}

// retryAfter is implemented by errors that tell the client when to come back.
type retryAfter interface {
	error
	RetryAfterSeconds() int
}

func writeProblem(w http.ResponseWriter, p problem) {
	h := w.Header()
	h.Set("Content-Type", "application/problem+json")
	h.Set("Cache-Control", "no-store")
	// Problem texts are English whatever the request asked for.
	h.Set("Content-Language", "en")
	h.Del("Content-Length")
	h.Del("ETag")
	h.Del("Last-Modified")
	w.WriteHeader(p.Status)
	_ = json.NewEncoder(w).Encode(p)
}
