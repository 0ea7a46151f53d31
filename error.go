package skygate

import (
	"errors"
	"fmt"
)

// Error codes are stable PascalCase identifiers that partners may switch on. The HTTP
// layer maps each to one status; anything that is not an *Error is CodeInternal.
const (
	CodeValidation                = "ValidationFailed"
	CodeBadRequest                = "BadRequest"
	CodeNotFound                  = "NotFound"
	CodeConflict                  = "Conflict"
	CodeUnauthorized              = "Unauthorized"
	CodeInsufficientScope         = "InsufficientScope"
	CodeForbidden                 = "Forbidden"
	CodeRateLimited               = "RateLimited"
	CodePayloadTooLarge           = "PayloadTooLarge"
	CodeUnsupportedMediaType      = "UnsupportedMediaType"
	CodeNotAcceptable             = "NotAcceptable"
	CodeMethodNotAllowed          = "MethodNotAllowed"
	CodeClientCertificateRequired = "ClientCertificateRequired"
	CodeIdempotencyConflict       = "IdempotencyConflict"
	CodeIdempotencyInProgress     = "IdempotencyInProgress"
	CodeInvalidBookingStatus      = "InvalidBookingStatus"
	CodePassNotReady              = "PassNotReady"
	CodeWebhookExists             = "WebhookExists"
	CodePoolExhausted             = "PoolExhausted"
	CodeInsufficientFunds         = "InsufficientFunds"
	// CodeSlotFull is a booking whose passengers do not fit in what is left of its
	// fast-track's capacity slot (409).
	CodeSlotFull = "SlotFull"
	// CodeRefundChanged is a cancel whose expected_refund is not the refund at the
	// time of the cancel (409); nothing changed.
	CodeRefundChanged = "RefundChanged"
	// CodeQuoteExpired is a create naming a quote past its expiry (422).
	CodeQuoteExpired = "QuoteExpired"
	// CodeQuoteUsed is a create naming a quote another booking used (409).
	CodeQuoteUsed = "QuoteUsed"
	// CodeInvalidESIMStatus is a change an eSIM's status or profile state does not
	// allow, such as the cancel of an installed eSIM (409).
	CodeInvalidESIMStatus = "InvalidESIMStatus"
	// CodeRefundWindowClosed is the cancel of an eSIM past its package's refund
	// window (409).
	CodeRefundWindowClosed = "RefundWindowClosed"
	// CodeCursorExpired is an events API cursor older than the event retention (410).
	CodeCursorExpired = "CursorExpired"
	CodeUnavailable   = "Unavailable"
	CodeInternal      = "Internal"
)

// Error is the one domain error. Message is safe to show to the caller; Err is the
// private cause, which is logged and never sent.
type Error struct {
	Code    string
	Message string
	// Fields lists per-field problems of a CodeValidation error.
	Fields []FieldError
	// BookingStatus is, for CodeInvalidBookingStatus, the status the booking is in when
	// known: a client that retried a confirm or cancel after a timeout learns from it
	// that its first call took effect.
	BookingStatus BookingStatus
	// Refund is, for CodeRefundChanged, the refund a cancel gives now (nil when the
	// booking has no price).
	Refund *Money
	Err    error
}

// FieldError names one invalid field of a request, by its JSON path.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return e.Code + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the code and a formatted public message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ValidationError returns a CodeValidation error listing the invalid fields.
func ValidationError(fields ...FieldError) *Error {
	return &Error{Code: CodeValidation, Message: "the request failed validation", Fields: fields}
}

// BadParameter returns the CodeBadRequest of the request parameter name (a query
// parameter, or "query" for the query string as a whole), whose message is the name
// followed by msg, which says what the parameter must be.
func BadParameter(name, msg string) *Error {
	return &Error{Code: CodeBadRequest, Message: name + " " + msg, Fields: []FieldError{{Field: name, Message: msg}}}
}

// ErrorCode returns the code of the first *Error in err's chain, CodeInternal for any
// other non-nil error, and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Code
	}
	return CodeInternal
}

// ErrorMessage returns the public message of err; internal errors get a fixed text so
// that nothing private leaks.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Message
	}
	return "an internal error occurred"
}

// IsCode reports whether err carries the code.
func IsCode(err error, code string) bool { return ErrorCode(err) == code }
