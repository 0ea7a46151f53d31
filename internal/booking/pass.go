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

// newPass returns the pass of a booking for serviceDate (YYYY-MM-DD) at an airport in
// loc: valid from 00:00 of that day until 00:00 of the next day plus ValidityGrace,
// local time.
func newPass(bookingID, serviceDate string, loc *time.Location) (*skygate.Pass, error) {
	day, err := time.ParseInLocation(time.DateOnly, serviceDate, loc)
	if err != nil {
		return nil, fmt.Errorf("booking %s: service date %q: %w", bookingID, serviceDate, err)
	}
	code := newCode()
	return &skygate.Pass{
		Code:       code,
		Payload:    PayloadPrefix + bookingID + ":" + code,
		ValidFrom:  day.UTC(),
		ValidUntil: day.AddDate(0, 0, 1).Add(ValidityGrace).UTC(),
	}, nil
}
