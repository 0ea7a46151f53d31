package skygate

// This file holds what the service promises about passengers' personal data: which
// fields are personal, how stores keep them at rest, where they never go, and when
// they are removed.
//
// A Passenger's personal data is everything but its names: DateOfBirth,
// PassportNumber, Nationality, Email and Phone. The names identify the booking (at the
// airport, in the partner's systems) and stay as long as the booking does. The personal
// fields are:
//   - sealed at rest: a store keeps them encrypted with its Sealer, bound to the
//     booking, and so the fingerprint and body of every idempotency record (the stored
//     answer of create-booking repeats the passengers);
//   - never in the outbox: the booking that booking.status.changed carries has its
//     passengers' names only (BookingEvents), so events and webhook deliveries hold none;
//   - removed a retention after the service date (BookingStore.ErasePassengerData,
//     called by the booking worker), the booking, its history and its pass staying.

import "time"

// DefaultPassengerDataRetention is how long after the end of a booking's service date
// its passengers' personal data is kept unless configured (SKYGATE_PASSENGER_DATA_RETENTION):
// 90 days.
const DefaultPassengerDataRetention = 90 * 24 * time.Hour

// Sealer encrypts values at rest and authenticates them together with associated data
// that is not stored: Open fails for a value sealed under another key or with other
// associated data, so a sealed value copied to another row does not open. *seal.Box
// implements it; a store is opened with one and seals with it what must not rest in
// clear.
type Sealer interface {
	Seal(plaintext, associatedData []byte) []byte
	Open(ciphertext, associatedData []byte) ([]byte, error)
}

// HasPersonalData reports whether p holds any personal field (any but the names).
func (p Passenger) HasPersonalData() bool { return p != p.Names() }

// Names returns p with its names and type only: the personal fields removed.
func (p Passenger) Names() Passenger {
	return Passenger{FirstName: p.FirstName, LastName: p.LastName, Type: p.Type}
}

// PassengerNames returns ps with their names only (nil for nil), leaving ps as it is.
func PassengerNames(ps []Passenger) []Passenger {
	if ps == nil {
		return nil
	}
	out := make([]Passenger, len(ps))
	for i, p := range ps {
		out[i] = p.Names()
	}
	return out
}

// PassengerDataCutoff returns the service date (YYYY-MM-DD) from which bookings keep
// their passengers' personal data at now: a booking whose service date is before it
// has passed retention since the end of that date, a day taken in UTC (up to 14 hours
// off the day at the fast-track's airport, which a retention of days does not notice).
func PassengerDataCutoff(now time.Time, retention time.Duration) string {
	return now.UTC().Add(-retention).Format(time.DateOnly)
}
