package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// OAuth 2.0 error codes of the token endpoint (RFC 6749 §5.2), plus server_error for
// failures of the service itself and temporarily_unavailable (RFC 6749 §4.1.2.1) for
// a store that cannot be reached right now.
const (
	CodeInvalidRequest       = "invalid_request"
	CodeInvalidClient        = "invalid_client"
	CodeInvalidGrant         = "invalid_grant"
	CodeUnauthorizedClient   = "unauthorized_client"
	CodeUnsupportedGrantType = "unsupported_grant_type"
	CodeInvalidScope         = "invalid_scope"
	CodeAccessDenied         = "access_denied"
	CodeServerError          = "server_error"
	CodeUnavailable          = "temporarily_unavailable"
)

// Errors of Verifier.Verify. Every rejection wraps exactly one of them, so errors.Is
// tells the HTTP layer which status to answer: ErrWrongAudience is 403, ErrInvalidToken
// is 401. A token with a wrong audience is only reported as such when everything else
// about it is valid.
var (
	ErrInvalidToken  = errors.New("invalid token")
	ErrWrongAudience = errors.New("token audience does not include this API")
)

// ErrNoSigningKey is returned by Issuer.Issue when the KeyManager holds no key active
// at the current time (EnsureKey was not called, or every key is still pre-published).
var ErrNoSigningKey = errors.New("oauth: no active signing key")

// Error is an error of the token endpoint, sent as the RFC 6749 §5.2 JSON body
// {"error","error_description"}. Description is public; Err is the private cause,
// logged and never sent.
type Error struct {
	Code        string `json:"error"`
	Description string `json:"error_description,omitempty"`
	// Status is the HTTP status; zero means the default for Code (see StatusOf).
	Status int   `json:"-"`
	Err    error `json:"-"`
}

// Errorf returns an *Error with code and a formatted public description.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Description: fmt.Sprintf(format, args...)}
}

func (e *Error) Error() string {
	s := "oauth: " + e.Code
	if e.Description != "" {
		s += ": " + e.Description
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// StatusOf returns the HTTP status of e: e.Status when set, else 401 for
// invalid_client, 403 for access_denied, 500 for server_error and 400 for the rest.
func (e *Error) StatusOf() int {
	if e.Status != 0 {
		return e.Status
	}
	switch e.Code {
	case CodeInvalidClient:
		return http.StatusUnauthorized
	case CodeAccessDenied:
		return http.StatusForbidden
	case CodeServerError:
		return http.StatusInternalServerError
	default:
		return http.StatusBadRequest
	}
}

// asError turns any error into an *Error; errors that are not one become a
// server_error whose cause is err.
func asError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeServerError, Description: "the server could not complete the request", Err: err}
}

// writeError sends e as the token endpoint's JSON error body. RFC 6749 §5.2 answers
// an invalid_client error of a request that tried the Authorization header with a
// challenge.
func writeError(w http.ResponseWriter, r *http.Request, e *Error) {
	h := w.Header()
	if _, triedHeader := r.Header["Authorization"]; triedHeader && e.Code == CodeInvalidClient {
		h.Set("WWW-Authenticate", `Basic realm="skygate", charset="UTF-8"`)
	}
	body, _ := json.Marshal(e) // only strings: cannot fail
	writeJSON(w, e.StatusOf(), body)
}

// writeJSON writes a token endpoint response; RFC 6749 §5.1 forbids caching both
// successes and errors.
func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
