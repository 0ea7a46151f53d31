package skygate_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

func TestQuoteFingerprint(t *testing.T) {
	t.Parallel()
	base := skygate.QuoteFingerprint("ft", "2025-06-03T09:30", []skygate.PassengerType{skygate.PassengerAdult, skygate.PassengerChild})
	tests := []struct {
		name  string
		fp    []byte
		equal bool
	}{
		{"Same", skygate.QuoteFingerprint("ft", "2025-06-03T09:30", []skygate.PassengerType{"adult", "child"}), true},
		{"EmptyTypeIsAdult", skygate.QuoteFingerprint("ft", "2025-06-03T09:30", []skygate.PassengerType{"", "child"}), true},
		{"OtherFastTrack", skygate.QuoteFingerprint("ft2", "2025-06-03T09:30", []skygate.PassengerType{"adult", "child"}), false},
		{"OtherTime", skygate.QuoteFingerprint("ft", "2025-06-03T09:31", []skygate.PassengerType{"adult", "child"}), false},
		{"OtherOrder", skygate.QuoteFingerprint("ft", "2025-06-03T09:30", []skygate.PassengerType{"child", "adult"}), false},
		{"OneMore", skygate.QuoteFingerprint("ft", "2025-06-03T09:30", []skygate.PassengerType{"adult", "child", "infant"}), false},
		// Field boundaries are kept: no concatenation makes two fact sets equal.
		{"Boundaries", skygate.QuoteFingerprint("ft2025", "-06-03T09:30", []skygate.PassengerType{"adult", "child"}), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := bytes.Equal(tt.fp, base); got != tt.equal {
				t.Errorf("equal = %v, want %v", got, tt.equal)
			}
		})
	}
}

func TestQuoteCheckUse(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	b := &skygate.Booking{FastTrackID: "ft", Flight: skygate.Flight{ScheduledAt: "2025-06-03T09:30"},
		Passengers: []skygate.Passenger{{FirstName: "A", LastName: "B"}}}
	quote := func(mod func(q *skygate.Quote)) *skygate.Quote {
		q := &skygate.Quote{ID: "q", FastTrackID: "ft", ExpiresAt: now.Add(time.Minute),
			Fingerprint: skygate.QuoteFingerprint("ft", "2025-06-03T09:30", []skygate.PassengerType{"adult"})}
		if mod != nil {
			mod(q)
		}
		return q
	}
	tests := []struct {
		name string
		q    *skygate.Quote
		want string
	}{
		{"Usable", quote(nil), ""},
		{"Used", quote(func(q *skygate.Quote) { q.UsedBy = "other" }), skygate.CodeQuoteUsed},
		{"UsedAndExpiredIsUsed", quote(func(q *skygate.Quote) { q.UsedBy = "other"; q.ExpiresAt = now }), skygate.CodeQuoteUsed},
		{"ExpiresNow", quote(func(q *skygate.Quote) { q.ExpiresAt = now }), skygate.CodeQuoteExpired},
		{"OtherFacts", quote(func(q *skygate.Quote) {
			q.Fingerprint = skygate.QuoteFingerprint("ft", "2025-06-03T10:30", []skygate.PassengerType{"adult"})
		}), skygate.CodeValidation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := skygate.ErrorCode(tt.q.CheckUse(b, now)); got != tt.want {
				t.Errorf("CheckUse = %q, want %q", got, tt.want)
			}
		})
	}
}
