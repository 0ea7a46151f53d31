package booking

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/skygate/skygate"
)

// MaxKeyLength is the longest Idempotency-Key accepted.
const MaxKeyLength = 255

// CreateResult is the answer to a create request: StatusCode (202) and Body (the
// booking as JSON) are what the HTTP layer sends, BookingID names the booking for the
// Location header, and Reused says whether this is the stored answer to an earlier
// request with the same key (Idempotency-Status: reused) or a new one (created).
type CreateResult struct {
	StatusCode int
	Body       []byte
	BookingID  string
	Reused     bool
}

// ValidateKey checks an Idempotency-Key: 1–255 printable ASCII characters (space to
// tilde). A missing or invalid key is CodeBadRequest.
func ValidateKey(key string) error {
	if key == "" {
		return badRequest("Idempotency-Key", "the Idempotency-Key header is required")
	}
	if len(key) > MaxKeyLength {
		return badRequest("Idempotency-Key", "the Idempotency-Key header must be at most 255 characters")
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return badRequest("Idempotency-Key", "the Idempotency-Key header must be printable ASCII")
		}
	}
	return nil
}

// badRequest is a CodeBadRequest error about one field or header.
func badRequest(field, message string) *skygate.Error {
	return &skygate.Error{Code: skygate.CodeBadRequest, Message: message,
		Fields: []skygate.FieldError{{Field: field, Message: message}}}
}

// Fingerprint returns the SHA-256 of the canonical form of a JSON document, with the
// document decoded. The canonical form has object keys sorted, no insignificant
// whitespace, strings escaped one way and numbers as written, so two bodies that
// differ only in key order or layout have one fingerprint. A body that is not exactly
// one JSON value is CodeBadRequest.
func Fingerprint(body []byte) (sum []byte, doc any, err error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, nil, skygate.Errorf(skygate.CodeBadRequest, "the body is not valid JSON")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, nil, skygate.Errorf(skygate.CodeBadRequest, "the body must hold exactly one JSON value")
	}
	canonical, err := appendCanonical(make([]byte, 0, len(body)), doc)
	if err != nil {
		// The decoder made a type the encoder does not know: our fault, not the body's.
		return nil, nil, fmt.Errorf("booking: fingerprint: %w", err)
	}
	h := sha256.Sum256(canonical)
	return h[:], doc, nil
}

// Create handles POST /v2/b2b/booking/fast-tracks for the account's client: it checks
// the key (CodeBadRequest), parses the body (CodeBadRequest for malformed JSON or an
// unknown field), answers a known key with the stored result when the body is the
// same (Reused) or CodeIdempotencyConflict when it differs, validates the request
// (CodeValidation listing every invalid field), and stores a Pending booking with the
// key. Only accepted requests are remembered: a rejected request does not use up its
// key. Concurrent requests with one key create one booking; the others are replays.
func (s *Service) Create(ctx context.Context, accountID, clientID, key string, body []byte) (*CreateResult, error) {
	if err := ValidateKey(key); err != nil {
		return nil, err
	}
	fp, doc, err := Fingerprint(body)
	if err != nil {
		return nil, err
	}
	now := s.now()
	// A known key is answered from its record whatever the request now holds, even
	// when its body would no longer validate (a service date now past). The common
	// case, a new key, is not read first: the transaction's claim of the key finds a
	// known one and returns its record; only a request that fails validation looks
	// the key up, before it answers with its error.
	b, err := s.parse(doc, now)
	if err != nil {
		rec, lookup := s.store.IdempotencyRecord(ctx, accountID, skygate.OperationCreateBooking, key, now)
		switch {
		case lookup == nil:
			return replay(rec, fp)
		case !skygate.IsCode(lookup, skygate.CodeNotFound):
			return nil, lookup
		}
		return nil, err
	}
	b.ID, b.AccountID, b.ClientID = skygate.NewID(), accountID, clientID
	b.Status = skygate.BookingPending
	b.CreatedAt, b.UpdatedAt = now.UTC().Truncate(time.Microsecond), now.UTC().Truncate(time.Microsecond)
	b.StatusHistory = []skygate.StatusChange{{Status: skygate.BookingPending, At: b.CreatedAt}}
	out, err := b.AppendJSON(make([]byte, 0, 768))
	if err != nil {
		return nil, err
	}
	rec := &skygate.IdempotencyRecord{
		AccountID:   accountID,
		Operation:   skygate.OperationCreateBooking,
		Key:         key,
		Fingerprint: fp,
		StatusCode:  http.StatusAccepted,
		ResourceID:  b.ID,
		Body:        out,
		CreatedAt:   now,
		ExpiresAt:   now.Add(KeyLifetime),
	}
	// The creation's booking.status.changed (Pending, previous_status null) is written
	// with the key and the booking, in one transaction.
	events, err := skygate.BookingEvents(nil, b, b.CreatedAt)
	if err != nil {
		return nil, err
	}
	stored, err := s.store.CreateBooking(ctx, rec, b, events)
	if err != nil {
		return nil, err
	}
	if stored != nil { // a concurrent request with this key won
		return replay(stored, fp)
	}
	s.wakeWorkers()
	return &CreateResult{StatusCode: rec.StatusCode, Body: out, BookingID: b.ID}, nil
}

// replay answers a request whose key is known.
func replay(rec *skygate.IdempotencyRecord, fp []byte) (*CreateResult, error) {
	if !bytes.Equal(rec.Fingerprint, fp) {
		return nil, skygate.Errorf(skygate.CodeIdempotencyConflict,
			"the Idempotency-Key was already used with a different request body")
	}
	return &CreateResult{StatusCode: rec.StatusCode, Body: rec.Body, BookingID: rec.ResourceID, Reused: true}, nil
}
