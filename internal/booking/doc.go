// Package booking owns the fast-track booking logic beyond storage: validating create
// requests (typed commands, which the HTTP layer decodes) under an Idempotency-Key
// (internal/idempotency; a replay answers the booking as first answered), the effects
// of each transition (the pass and the confirmation deadline on issue, the events of
// every change), pass rendering as a QR code, and the Worker that issues Pending
// bookings, expires unconfirmed ones, purges old idempotency keys and quotes, and removes
// passengers' personal data after the retention (Config.PassengerDataRetention).
//
// The money decisions are here too (pricing.go, refund.go): an account with a price
// list (Config.Prices) books priced, from its list or from a quote it asked for
// (Service.Quote, kept by Config.Quotes) whose use the store records in the create's
// transaction; a cancel sets the refund the booking's status and cancellation terms
// give at its time, and may insist on an expected one. The store moves the money.
//
// Events are written by the store in the transaction of the change they describe
// (skygate.BookingStore), so a booking never changes without its event and an event
// never describes a change that rolled back. Time comes from an injected
// skygate.Clock, so tests move it instead of sleeping.
//
// Errors are *skygate.Error codes, which the HTTP layer maps to statuses:
// CodeBadRequest (a missing or malformed key), CodeValidation (every invalid field),
// CodeNotFound, CodeIdempotencyConflict, CodeInvalidBookingStatus, CodePassNotReady,
// CodeQuoteExpired, CodeQuoteUsed and CodeRefundChanged.
package booking
