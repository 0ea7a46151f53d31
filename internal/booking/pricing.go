package booking

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/skygate/skygate"
)

// noPrice is the field error of a fast-track the account has no price for.
var noPrice = skygate.FieldError{Field: "fast_track_id", Message: "not bookable by this account: no price"}

// QuoteCommand asks for a quote for the account's client: the price and cancellation
// policy a create request (Request, without quote_id) would get now.
type QuoteCommand struct {
	AccountID string
	ClientID  string
	Request
}

// Quote validates the command's request exactly as Create would and returns a new
// stored quote of its price and cancellation terms, which a booking created within
// skygate.QuoteTTL may lock by naming its id. A price is required: an account without
// a price list, or a fast-track it has no price for, is CodeValidation naming
// fast_track_id. A quote books nothing, so it needs no Idempotency-Key: a repeated
// request just gets another quote.
func (s *Service) Quote(ctx context.Context, cmd QuoteCommand) (*skygate.Quote, error) {
	now := s.now()
	if cmd.QuoteID != "" {
		return nil, skygate.ValidationError(skygate.FieldError{Field: "quote_id", Message: "must not be sent when asking for a quote"})
	}
	b, err := s.validate(cmd.Request, now)
	if err != nil {
		return nil, err
	}
	if err := s.priceFromList(ctx, cmd.AccountID, b, true); err != nil {
		return nil, err
	}
	if s.quotes == nil {
		return nil, skygate.ValidationError(noPrice)
	}
	created := now.UTC().Truncate(time.Microsecond)
	q := &skygate.Quote{
		ID: skygate.NewID(), AccountID: cmd.AccountID, ClientID: cmd.ClientID, FastTrackID: b.FastTrackID,
		Price: *b.Price, CancellationPolicy: b.CancellationPolicy, ScheduledAt: b.Flight.ScheduledAt,
		PassengerTypes: skygate.PassengerTypesOf(b.Passengers), Fingerprint: skygate.BookingQuoteFingerprint(b),
		CreatedAt: created, ExpiresAt: created.Add(skygate.QuoteTTL),
	}
	if q.CancellationPolicy == nil {
		q.CancellationPolicy = []skygate.CancellationTerm{}
	}
	if err := s.quotes.CreateQuote(ctx, q); err != nil {
		return nil, err
	}
	return q, nil
}

// price gives b, a validated request of the account at now, its commercial side:
// the price and cancellation terms of the quote it names (quoteID), or else of the
// account's price list when it has one. See priceFromList and useQuote.
func (s *Service) price(ctx context.Context, accountID, quoteID string, b *skygate.Booking, now time.Time) error {
	if quoteID != "" {
		return s.useQuote(ctx, accountID, quoteID, b, now)
	}
	return s.priceFromList(ctx, accountID, b, false)
}

// priceFromList prices b from the account's price list: when the account has one (or
// required is set), b must name its flight's scheduled time and a fast-track the list
// prices, each a CodeValidation on its field; then b.Price is the price of its
// passengers and b.CancellationPolicy the fast-track's rules rendered for its flight
// and price. An account without a price list leaves b unpriced unless required, when
// that is CodeValidation on fast_track_id.
func (s *Service) priceFromList(ctx context.Context, accountID string, b *skygate.Booking, required bool) error {
	p, priced, v, err := s.priceListProblems(ctx, accountID, b.FastTrackID, b.Flight.ScheduledAt, required)
	if err != nil || !priced {
		return err
	}
	if len(v) > 0 {
		return skygate.ValidationError(v...)
	}
	scheduled, ok := scheduledInstant(b.Flight.ScheduledAt, s.zone(b.FastTrackID))
	if !ok {
		return skygate.ValidationError(skygate.FieldError{Field: "flight.scheduled_at",
			Message: "must be a local date and time at the airport in the form YYYY-MM-DDTHH:MM"})
	}
	price := p.Total(b.Passengers)
	rules, _ := s.fastTracks.FastTrackCancellation(b.FastTrackID)
	b.Price, b.CancellationPolicy = &price, skygate.CancellationTerms(rules, scheduled, price)
	return nil
}

// priceListProblems reads, in one read, the account's price of fastTrackID and
// whether it has a price list, and returns the price with what the list asks of a
// booking of fastTrackID scheduled at scheduledAt ("" when not sent): priced is false
// when the account has no price list (and required is not set), and then there is
// nothing to ask; else v holds flight.scheduled_at when it is missing and
// fast_track_id (noPrice) when the list does not price the fast-track.
func (s *Service) priceListProblems(ctx context.Context, accountID, fastTrackID, scheduledAt string, required bool) (price *skygate.FastTrackPrice, priced bool, v validation, err error) {
	hasList := false
	if s.prices != nil {
		if price, hasList, err = s.prices.PriceFor(ctx, accountID, fastTrackID); err != nil {
			return nil, false, nil, err
		}
	}
	if !hasList && !required {
		return nil, false, nil, nil
	}
	if scheduledAt == "" {
		v.fail("flight.scheduled_at", "is required: the booking is priced by the account's price list")
	}
	if price == nil {
		v = append(v, noPrice)
	}
	return price, true, v, nil
}

// withPriceProblems adds to invalid, the CodeValidation of a create request r of the
// account that names no quote, the problems its price list finds in r
// (priceListProblems), so that one answer lists them all; a field invalid already
// names is not named twice. Any other error is returned as it is.
func (s *Service) withPriceProblems(ctx context.Context, accountID string, r Request, invalid error) error {
	var e *skygate.Error
	if r.QuoteID != "" || !errors.As(invalid, &e) || e.Code != skygate.CodeValidation {
		return invalid
	}
	scheduledAt := ""
	if r.Flight != nil {
		scheduledAt = r.Flight.ScheduledAt
	}
	_, _, more, err := s.priceListProblems(ctx, accountID, r.FastTrackID, scheduledAt, false)
	if err != nil {
		return err
	}
	fields := slices.Clone(e.Fields)
	for _, f := range more {
		if !slices.ContainsFunc(fields, func(g skygate.FieldError) bool { return g.Field == f.Field }) {
			fields = append(fields, f)
		}
	}
	return skygate.ValidationError(fields...)
}

// useQuote gives b the price and terms of the account's quote quoteID, checked now
// for clear errors (the store checks again, atomically, when it marks the quote used):
// an unknown quote or another account's is skygate.QuoteNotFound; a used, expired or
// mismatched one the error skygate.Quote.CheckUse gives.
func (s *Service) useQuote(ctx context.Context, accountID, quoteID string, b *skygate.Booking, now time.Time) error {
	if s.quotes == nil || !skygate.IsID(quoteID) {
		return skygate.QuoteNotFound()
	}
	q, err := s.quotes.Quote(ctx, accountID, quoteID)
	if skygate.IsCode(err, skygate.CodeNotFound) {
		return skygate.QuoteNotFound()
	}
	if err != nil {
		return err
	}
	if err := q.CheckUse(b, now); err != nil {
		return err
	}
	price := q.Price
	b.Price, b.CancellationPolicy, b.QuoteID = &price, slices.Clone(q.CancellationPolicy), q.ID
	if len(b.CancellationPolicy) == 0 {
		b.CancellationPolicy = nil
	}
	return nil
}
