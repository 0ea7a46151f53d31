package idempotency

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/skygate/skygate"
)

const (
	// Lifetime is how long a key is remembered (CONTRACT §4): after it, the key is new.
	Lifetime = 72 * time.Hour
	// MaxKeyLength is the longest key accepted.
	MaxKeyLength = 255
)

// ValidateKey checks a key: 1–255 printable ASCII characters (space to tilde). A
// missing or invalid key is CodeBadRequest naming the Idempotency-Key header.
func ValidateKey(key string) error {
	if key == "" {
		return badKey("the Idempotency-Key header is required")
	}
	if len(key) > MaxKeyLength {
		return badKey("the Idempotency-Key header must be at most 255 characters")
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return badKey("the Idempotency-Key header must be printable ASCII")
		}
	}
	return nil
}

func badKey(message string) *skygate.Error {
	return &skygate.Error{Code: skygate.CodeBadRequest, Message: message,
		Fields: []skygate.FieldError{{Field: "Idempotency-Key", Message: message}}}
}

// Fingerprint returns the SHA-256 of the canonical form of a JSON document: object
// keys sorted, no insignificant whitespace, strings escaped as json.Marshal escapes
// them (HTML characters, U+2028 and U+2029 included) and numbers as written. Two
// bodies that differ only in key order or layout have one fingerprint, and the
// fingerprints stored by earlier releases, which wrote the same form, still match. A
// body that is not exactly one JSON value is CodeBadRequest.
func Fingerprint(body []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, skygate.Errorf(skygate.CodeBadRequest, "the body is not valid JSON")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, skygate.Errorf(skygate.CodeBadRequest, "the body must hold exactly one JSON value")
	}
	canonical, err := json.Marshal(doc) // maps are written with their keys sorted
	if err != nil {
		return nil, fmt.Errorf("idempotency: canonical form: %w", err)
	}
	sum := sha256.Sum256(canonical)
	return sum[:], nil
}

// FingerprintOf is the Fingerprint of v's JSON form, for a request that a service
// receives typed rather than as a body.
func FingerprintOf(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("idempotency: encode request: %w", err)
	}
	return Fingerprint(b)
}

// Request is one idempotent request: the account's Key for Operation (one of the
// skygate.Operation… constants) and the Fingerprint of what it asks.
type Request struct {
	AccountID   string
	Operation   string
	Key         string
	Fingerprint []byte
}

// statusOfEarlierReleases is the HTTP status that releases before this package stored
// beside each answer and replay as they find it. A replica of such a release, running
// beside this one during a rollout, may replay a record written here, so records keep
// carrying it until no such release can run; this release never reads it.
var statusOfEarlierReleases = map[string]int{
	skygate.OperationCreateBooking: 202,
	skygate.OperationESIMOrder:     201,
	skygate.OperationESIMTopUp:     201,
}

// Record returns the record that remembers r's answer from now for Lifetime: the id
// of the resource it created and answer, that resource as it was created, in its JSON
// form (Answer reads it back).
func (r Request) Record(resourceID string, answer any, now time.Time) (*skygate.IdempotencyRecord, error) {
	body, err := json.Marshal(answer)
	if err != nil {
		return nil, fmt.Errorf("idempotency: encode the answer: %w", err)
	}
	return &skygate.IdempotencyRecord{
		AccountID:   r.AccountID,
		Operation:   r.Operation,
		Key:         r.Key,
		Fingerprint: r.Fingerprint,
		StatusCode:  statusOfEarlierReleases[r.Operation],
		ResourceID:  resourceID,
		Body:        body,
		CreatedAt:   now,
		ExpiresAt:   now.Add(Lifetime),
	}, nil
}

// Match is nil when rec, the record of r's key, was written for the same request,
// and CodeIdempotencyConflict when it was written for another.
func (r Request) Match(rec *skygate.IdempotencyRecord) error {
	if !bytes.Equal(rec.Fingerprint, r.Fingerprint) {
		return skygate.Errorf(skygate.CodeIdempotencyConflict,
			"the Idempotency-Key was already used with a different request")
	}
	return nil
}

// Records looks records up; skygate.BookingStore implements it.
type Records interface {
	// IdempotencyRecord returns the account's record of operation and key, or
	// CodeNotFound when there is none or it expired at or before now.
	IdempotencyRecord(ctx context.Context, accountID, operation, key string, now time.Time) (*skygate.IdempotencyRecord, error)
}

// Lookup returns the record of r's key that is live at now, for a replay: CodeNotFound
// when the key is not known, CodeIdempotencyConflict when it was used for another
// request (Match).
func Lookup(ctx context.Context, records Records, r Request, now time.Time) (*skygate.IdempotencyRecord, error) {
	rec, err := records.IdempotencyRecord(ctx, r.AccountID, r.Operation, r.Key, now)
	if err != nil {
		return nil, err
	}
	if err := r.Match(rec); err != nil {
		return nil, err
	}
	return rec, nil
}

// Answer decodes the answer that rec stores (Record's answer) into v.
func Answer(rec *skygate.IdempotencyRecord, v any) error {
	if err := json.Unmarshal(rec.Body, v); err != nil {
		return fmt.Errorf("idempotency: the answer stored for %s %s: %w", rec.Operation, rec.ResourceID, err)
	}
	return nil
}
