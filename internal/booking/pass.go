package booking

import (
	"crypto/rand"
	"fmt"
	"time"

	"github.com/skygate/skygate"
)

// Pass format.
const (
	// PayloadPrefix starts every QR payload: "SKYGATE:<booking id>:<code>".
	PayloadPrefix = "SKYGATE:"
	// codeAlphabet has no 0/O or 1/I, so a code read aloud or typed at a desk is
	// unambiguous; 32 symbols give 5 bits each.
	codeAlphabet = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
	// CodeLength is the length of a pass code: 50 random bits.
	CodeLength = 10
	// ValidityGrace extends a pass past the end of its service day, for arrivals after
	// midnight and delayed departures.
	ValidityGrace = 6 * time.Hour
)

// newCode returns a random pass code of CodeLength symbols of codeAlphabet.
func newCode() string {
	var b [CodeLength]byte
	_, _ = rand.Read(b[:])
	for i := range b {
		b[i] = codeAlphabet[b[i]%byte(len(codeAlphabet))] // 256 is a multiple of 32: no bias
	}
	return string(b[:])
}

// Pass validity around a flight's scheduled time (skygate.Flight.ScheduledAt): a
// departing passenger passes the fast-track in the hours before the flight, an
// arriving one from shortly before landing until well after it. Each window ends
// with a grace for late flights (departureClosesAfter, arrivalClosesAfter): delays
// happen, and whether a late passenger may still pass is the airport's call at the
// gate, not the pass's.
const (
	departureOpensBefore = 4 * time.Hour
	departureClosesAfter = 2 * time.Hour
	arrivalOpensBefore   = time.Hour
	arrivalClosesAfter   = 6 * time.Hour
)

// newPass returns the pass of b at an airport in loc. With a scheduled time it is
// valid, for a departure, from 4 hours before it until 2 hours after it and, for an
// arrival, from 1 hour before it until 6 hours after it; without one, from 00:00 of
// the service day until 00:00 of the next day plus ValidityGrace, local time.
func newPass(b *skygate.Booking, loc *time.Location) (*skygate.Pass, error) {
	day, err := time.ParseInLocation(time.DateOnly, b.ServiceDate, loc)
	if err != nil {
		return nil, fmt.Errorf("booking %s: service date %q: %w", b.ID, b.ServiceDate, err)
	}
	from, until := day, day.AddDate(0, 0, 1).Add(ValidityGrace)
	if at, ok := scheduledInstant(b.Flight.ScheduledAt, loc); ok {
		from, until = at.Add(-departureOpensBefore), at.Add(departureClosesAfter)
		if b.Flight.Direction == skygate.FlightArrival {
			from, until = at.Add(-arrivalOpensBefore), at.Add(arrivalClosesAfter)
		}
	}
	code := newCode()
	return &skygate.Pass{
		Code:       code,
		Payload:    PayloadPrefix + b.ID + ":" + code,
		ValidFrom:  from.UTC(),
		ValidUntil: until.UTC(),
	}, nil
}
