package booking

import (
	"context"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/idempotency"
)

// Request is what a partner asks to book, in the JSON form of the create request
// (CONTRACT §4). A nil Flight or Passengers was not sent; a Passenger's empty field
// was not sent or was null.
type Request struct {
	FastTrackID      string              `json:"fast_track_id"`
	ServiceDate      string              `json:"service_date"`
	Flight           *skygate.Flight     `json:"flight"`
	Passengers       []skygate.Passenger `json:"passengers"`
	PartnerReference string              `json:"partner_reference"`
	// QuoteID names a quote (Service.Quote) whose price and cancellation terms the
	// booking locks; "" for none.
	QuoteID string `json:"quote_id,omitempty"`
}

// CreateCommand asks for a booking of the account's client under an Idempotency-Key.
// Fingerprint identifies the request for the key (idempotency.Fingerprint of the body
// the partner sent, so that key order and layout do not matter); when it is nil, the
// service uses the fingerprint of Request's JSON form.
type CreateCommand struct {
	AccountID      string
	ClientID       string
	IdempotencyKey string
	Fingerprint    []byte
	// Livemode is false for a sandbox application or deployment (skygate.Booking).
	Livemode bool
	Request
}

// Create books a fast-track for the command's client: it checks the key
// (CodeBadRequest), answers a known key with the booking it created, as first
// answered, when the request is the same (replayed) or CodeIdempotencyConflict when it
// differs, validates the request (CodeValidation listing every invalid field, those
// the account's price list asks for included when the request names no quote), prices
// it from the quote it names or the account's price list (price), and stores a
// Pending booking with the key and its first event in one transaction. Only
// accepted requests are remembered: a rejected request does not use up its key.
// Concurrent requests with one key create one booking; the others are replays.
func (s *Service) Create(ctx context.Context, cmd CreateCommand) (b *skygate.Booking, replayed bool, err error) {
	req, err := s.idempotent(cmd)
	if err != nil {
		return nil, false, err
	}
	now := s.now()
	// A known key is answered from its record whatever the request now holds, even
	// when it would no longer validate (a service date now past). The common case, a
	// new key, is not read first: the transaction's claim of the key finds a known one
	// and returns its record; only a request that fails validation looks the key up.
	// An invalid request is also told what the price list asks of it, in the same
	// answer rather than in a second round trip.
	b, err = s.validate(cmd.Request, now)
	if err == nil {
		err = s.price(ctx, cmd.AccountID, cmd.QuoteID, b, now)
	} else {
		err = s.withPriceProblems(ctx, cmd.AccountID, cmd.Request, err)
	}
	if err != nil {
		if known, lookup := s.replay(ctx, req, now); !skygate.IsCode(lookup, skygate.CodeNotFound) {
			return known, lookup == nil, lookup
		}
		return nil, false, err
	}
	b.ID, b.AccountID, b.ClientID, b.Livemode = skygate.NewID(), cmd.AccountID, cmd.ClientID, cmd.Livemode
	b.Status = skygate.BookingPending
	b.CreatedAt = now.UTC().Truncate(time.Microsecond) // the stored precision: the answer equals a later read
	b.UpdatedAt = b.CreatedAt
	b.StatusHistory = []skygate.StatusChange{{Status: skygate.BookingPending, At: b.CreatedAt}}
	rec, err := req.Record(b.ID, b, now)
	if err != nil {
		return nil, false, err
	}
	// The creation's booking.status.changed (Pending, previous_status null) is written
	// with the key and the booking, in one transaction.
	events, err := skygate.BookingEvents(nil, b, b.CreatedAt)
	if err != nil {
		return nil, false, err
	}
	stored, err := s.store.CreateBooking(ctx, rec, b, events)
	if skygate.IsCode(err, skygate.CodeSlotFull) {
		return nil, false, s.slotFull(b, err)
	}
	if err != nil {
		return nil, false, err
	}
	if stored != nil { // a concurrent request with this key won
		known, err := s.answer(req, stored)
		return known, err == nil, err
	}
	s.wakeWorkers()
	return b, false, nil
}

// Replay answers the account's request with key and fingerprint (as in CreateCommand)
// from the key's record: the booking as first answered, CodeNotFound when the key is
// not known, CodeIdempotencyConflict when it was used for another request. It is for a
// request rejected before it became a command (a field of the wrong JSON type, say),
// whose known key still decides as it does in Create.
func (s *Service) Replay(ctx context.Context, accountID, key string, fingerprint []byte) (*skygate.Booking, error) {
	if err := idempotency.ValidateKey(key); err != nil {
		return nil, err
	}
	req := idempotency.Request{AccountID: accountID, Operation: skygate.OperationCreateBooking, Key: key, Fingerprint: fingerprint}
	return s.replay(ctx, req, s.now())
}

// idempotent checks the command's key and returns its idempotency request.
func (s *Service) idempotent(cmd CreateCommand) (idempotency.Request, error) {
	req := idempotency.Request{AccountID: cmd.AccountID, Operation: skygate.OperationCreateBooking,
		Key: cmd.IdempotencyKey, Fingerprint: cmd.Fingerprint}
	if err := idempotency.ValidateKey(cmd.IdempotencyKey); err != nil {
		return req, err
	}
	var err error
	if req.Fingerprint == nil {
		req.Fingerprint, err = idempotency.FingerprintOf(cmd.Request)
	}
	return req, err
}

// replay answers req from its key's live record, or CodeNotFound.
func (s *Service) replay(ctx context.Context, req idempotency.Request, now time.Time) (*skygate.Booking, error) {
	rec, err := idempotency.Lookup(ctx, s.store, req, now)
	if err != nil {
		return nil, err
	}
	return s.answer(req, rec)
}

// answer is the booking that rec, a record of req's key, stores as first answered.
func (s *Service) answer(req idempotency.Request, rec *skygate.IdempotencyRecord) (*skygate.Booking, error) {
	if err := req.Match(rec); err != nil {
		return nil, err
	}
	var b skygate.Booking
	if err := idempotency.Answer(rec, &b); err != nil {
		return nil, err
	}
	b.AccountID = req.AccountID
	return &b, nil
}
