package skygate

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"slices"
	"time"
)

// QuoteTTL is how long a quote holds its price: a booking may name it until then.
const QuoteTTL = 15 * time.Minute

// Quote is a price and cancellation policy given to an account for one fast-track,
// flight time and set of passenger types, which a booking created before ExpiresAt may
// lock by naming ID (Booking.QuoteID). The JSON form is the partner-facing answer of
// the quote route; the rest is internal. A quote is used by one booking at most.
type Quote struct {
	ID                 string             `json:"id"`
	Price              Money              `json:"price"`
	CancellationPolicy []CancellationTerm `json:"cancellation_policy"`
	ExpiresAt          time.Time          `json:"expires_at"`

	AccountID string `json:"-"`
	// ClientID is the application that asked for the quote.
	ClientID    string `json:"-"`
	FastTrackID string `json:"-"`
	// ScheduledAt is the request's flight.scheduled_at (hub local time).
	ScheduledAt string `json:"-"`
	// PassengerTypes are the request's passengers' types, in order.
	PassengerTypes []PassengerType `json:"-"`
	// Fingerprint is QuoteFingerprint of the facts the price was given for.
	Fingerprint []byte    `json:"-"`
	CreatedAt   time.Time `json:"-"`
	// UsedBy is the id of the booking that locked the quote, "" while unused; UsedAt
	// is when.
	UsedBy string     `json:"-"`
	UsedAt *time.Time `json:"-"`
}

// QuoteFingerprint identifies the facts a price depends on: the fast-track, the
// flight's scheduled local time and the passengers' types in order ("" counts as
// adult). A booking may use a quote only when its facts have the quote's fingerprint.
func QuoteFingerprint(fastTrackID, scheduledAt string, types []PassengerType) []byte {
	norm := make([]PassengerType, len(types))
	for i, t := range types {
		norm[i] = t
		if t == "" {
			norm[i] = PassengerAdult
		}
	}
	facts, _ := json.Marshal([]any{fastTrackID, scheduledAt, norm}) // strings only: cannot fail
	sum := sha256.Sum256(facts)
	return sum[:]
}

// PassengerTypesOf returns the types of passengers, in order ("" as adult).
func PassengerTypesOf(passengers []Passenger) []PassengerType {
	out := make([]PassengerType, len(passengers))
	for i, p := range passengers {
		out[i] = p.Type
		if p.Type == "" {
			out[i] = PassengerAdult
		}
	}
	return out
}

// BookingQuoteFingerprint is QuoteFingerprint of b's facts.
func BookingQuoteFingerprint(b *Booking) []byte {
	return QuoteFingerprint(b.FastTrackID, b.Flight.ScheduledAt, PassengerTypesOf(b.Passengers))
}

// QuoteNotFound is the error of a quote id that names no quote of the account (also
// another account's): a CodeValidation on quote_id, the same for both.
func QuoteNotFound() *Error {
	return ValidationError(FieldError{Field: "quote_id", Message: "no quote of this account has this id"})
}

// CheckUse returns why booking b, created at now, may not lock q: CodeQuoteUsed when
// a booking used it already, CodeQuoteExpired at or after ExpiresAt, CodeValidation on
// quote_id when b's fast-track, flight time or passenger types are not q's. It returns
// nil when b may use q. q must be b's account's (else see QuoteNotFound).
func (q *Quote) CheckUse(b *Booking, now time.Time) error {
	switch {
	case q.UsedBy != "":
		return Errorf(CodeQuoteUsed, "the quote %s was used by another booking; ask for a new quote", q.ID)
	case !now.Before(q.ExpiresAt):
		return Errorf(CodeQuoteExpired, "the quote %s expired at %s; ask for a new quote", q.ID, q.ExpiresAt.UTC().Format(time.RFC3339))
	case !slices.Equal(q.Fingerprint, BookingQuoteFingerprint(b)):
		return ValidationError(FieldError{Field: "quote_id",
			Message: "the quote was given for another fast_track_id, flight.scheduled_at or passenger types"})
	}
	return nil
}

// QuoteStore keeps price quotes. Every method takes the account id; another account's
// quote is CodeNotFound.
type QuoteStore interface {
	// CreateQuote stores q (a new ID, unused). Times are normalised to the stored
	// precision. An id already taken is CodeConflict; an unknown account CodeNotFound.
	CreateQuote(ctx context.Context, q *Quote) error
	// Quote returns the account's quote, used or not, or CodeNotFound.
	Quote(ctx context.Context, accountID, quoteID string) (*Quote, error)
	// PurgeQuotes deletes at most limit quotes of any account, used or not, whose
	// ExpiresAt is before before, oldest first, and returns how many it deleted. A
	// purged quote is as unknown as one never given (QuoteNotFound); a booking that
	// locked it keeps its QuoteID and price. Maintenance, not tenant data: it takes no
	// account.
	PurgeQuotes(ctx context.Context, before time.Time, limit int) (int, error)
}
