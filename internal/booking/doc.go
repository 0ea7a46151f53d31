// Package booking owns the fast-track booking logic beyond storage: decoding and
// validating create requests, Idempotency-Key handling (fingerprints, replays and
// conflicts), the effects of each transition (the pass and the confirmation deadline
// on issue, the events of every change), pass rendering as a QR code, and the Worker
// that issues Pending bookings, expires unconfirmed ones, purges old idempotency
// keys and removes passengers' personal data after the retention
// (Config.PassengerDataRetention).
//
// Events are written by the store in the transaction of the change they describe
// (skygate.BookingStore), so a booking never changes without its event and an event
// never describes a change that rolled back. Time comes from an injected
// skygate.Clock, so tests move it instead of sleeping.
//
// The HTTP layer maps the returned *skygate.Error codes to statuses: CodeBadRequest
// 400, CodeValidation 422, CodeNotFound 404, CodeIdempotencyConflict,
// CodeInvalidBookingStatus and CodePassNotReady 409.
package booking
