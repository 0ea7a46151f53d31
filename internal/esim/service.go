package esim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/booking"
)

// Store is what the service keeps its data in: the ESIMStore, the idempotency lookup
// that create-booking uses too, and accounts (admin calls answer 404 for an unknown
// account). internal/sqlstore implements it.
type Store interface {
	skygate.ESIMStore
	// IdempotencyRecord is skygate.BookingStore's: the account's unexpired record of
	// operation and key, or CodeNotFound.
	IdempotencyRecord(ctx context.Context, accountID, operation, key string, now time.Time) (*skygate.IdempotencyRecord, error)
	// Account is skygate.AccountStore's.
	Account(ctx context.Context, accountID string) (*skygate.Account, error)
}

// Sealer encrypts small secrets at rest; *seal.Box implements it. Open fails for a
// value sealed with other associated data.
type Sealer interface {
	Seal(plaintext, associatedData []byte) []byte
	Open(ciphertext, associatedData []byte) ([]byte, error)
}

// Config is what a Service needs. Store and Sealer are required.
type Config struct {
	Store Store
	// Sealer seals matching IDs: seal.New(master.DeriveKey(seal.PurposeESIMMatchingID)).
	Sealer Sealer
	// Clock defaults to time.Now.
	Clock skygate.Clock
	// KeyLifetime is how long an Idempotency-Key is remembered; it defaults to
	// booking.KeyLifetime (72 h), the same as create-booking.
	KeyLifetime time.Duration
}

// Service is the eSIM logic. It is safe for concurrent use.
type Service struct {
	store   Store
	sealer  Sealer
	now     skygate.Clock
	keyLife time.Duration
}

// New returns a Service.
func New(cfg Config) *Service {
	s := &Service{store: cfg.Store, sealer: cfg.Sealer, now: cfg.Clock, keyLife: cfg.KeyLifetime}
	if s.now == nil {
		s.now = time.Now
	}
	if s.keyLife <= 0 {
		s.keyLife = booking.KeyLifetime
	}
	return s
}

// Paging limits of the eSIM lists, the same as the catalog's.
const (
	DefaultLimit = 100
	MaxLimit     = 500
)

// checkPage applies the default limit to a zero Limit and refuses a Limit above
// MaxLimit or a negative one or negative Offset with CodeBadRequest (out-of-range
// query values are 400, not clamped).
func checkPage(p skygate.Page) (skygate.Page, error) {
	var problems []skygate.FieldError
	if p.Limit == 0 {
		p.Limit = DefaultLimit
	}
	if p.Limit < 1 || p.Limit > MaxLimit {
		problems = append(problems, skygate.FieldError{Field: "limit", Message: fmt.Sprintf("must be an integer from 1 to %d", MaxLimit)})
	}
	if p.Offset < 0 {
		problems = append(problems, skygate.FieldError{Field: "offset", Message: "must not be negative"})
	}
	if problems != nil {
		return p, &skygate.Error{Code: skygate.CodeBadRequest, Message: "invalid query parameter", Fields: problems}
	}
	return p, nil
}

// associatedData binds a sealed matching ID to its ICCID, so a value copied to another
// profile's row does not open.
func associatedData(iccid string) []byte { return []byte("skygate/esim/matching-id/v1\x00" + iccid) }

// sealMatchingID seals a profile's matching ID.
func (s *Service) sealMatchingID(iccid, matchingID string) []byte {
	return s.sealer.Seal([]byte(matchingID), associatedData(iccid))
}

// reveal opens e's matching ID and fills MatchingID and ActivationCode, for the owning
// account's reads only.
func (s *Service) reveal(e *skygate.ESIM) error {
	plain, err := s.sealer.Open(e.MatchingIDSealed, associatedData(e.ICCID))
	if err != nil {
		return fmt.Errorf("esim: open the matching ID of %s: %w", e.ICCID, err)
	}
	e.MatchingID = string(plain)
	e.ActivationCode = skygate.ActivationCode(e.SMDPAddress, e.MatchingID)
	return nil
}

// present prepares eSIMs for their owner: activation codes revealed and each eSIM's
// package in lang, from one read of the account's catalog.
func (s *Service) present(ctx context.Context, accountID, lang string, esims ...*skygate.ESIM) error {
	if len(esims) == 0 {
		return nil
	}
	cat, err := s.store.ESIMCatalog(ctx, accountID)
	if err != nil {
		return err
	}
	pkgs := make(map[string]*skygate.ESIMPackage, len(cat.Packages))
	for _, p := range cat.Packages {
		pkgs[p.ID] = p
	}
	for _, e := range esims {
		if err := s.reveal(e); err != nil {
			return err
		}
		if p := pkgs[e.PackageID]; p != nil {
			e.Package = p.In(lang)
		}
	}
	return nil
}

// idempotent answers a request whose key is known: the stored record when fp matches,
// CodeIdempotencyConflict when it does not. found is false when no unexpired record
// exists.
func (s *Service) idempotent(ctx context.Context, accountID, operation, key string, fp []byte, now time.Time) (rec *skygate.IdempotencyRecord, found bool, err error) {
	rec, err = s.store.IdempotencyRecord(ctx, accountID, operation, key, now)
	switch {
	case skygate.IsCode(err, skygate.CodeNotFound):
		return nil, false, nil
	case err != nil:
		return nil, false, err
	}
	return rec, true, sameRequest(rec, fp)
}

// sameRequest is CodeIdempotencyConflict unless rec was written for the request fp.
func sameRequest(rec *skygate.IdempotencyRecord, fp []byte) error {
	if !bytes.Equal(rec.Fingerprint, fp) {
		return skygate.Errorf(skygate.CodeIdempotencyConflict,
			"the Idempotency-Key was already used with a different request")
	}
	return nil
}

// notFoundESIM is the answer for an unknown ICCID, one of another account, or a path
// value that cannot be an ICCID.
func notFoundESIM() error { return skygate.Errorf(skygate.CodeNotFound, "eSIM not found") }

// isNotFound reports whether err is CodeNotFound.
func isNotFound(err error) bool {
	var e *skygate.Error
	return errors.As(err, &e) && e.Code == skygate.CodeNotFound
}

// stored is t as the store keeps it, so that what a write returns equals a later read.
func stored(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// List is a page of a list in the shape every Skygate list has:
// {"data":[…],"pagination":{"count","offset","total"}}. Data is never null.
type List[T any] struct {
	Data       []T        `json:"data"`
	Pagination Pagination `json:"pagination"`
}

// Pagination says which part of a list Data is: Count items from Offset, of Total.
type Pagination struct {
	Count  int `json:"count"`
	Offset int `json:"offset"`
	Total  int `json:"total"`
}

// newList returns the page data at offset of a list of total items.
func newList[T any](data []T, offset, total int) *List[T] {
	if data == nil {
		data = []T{}
	}
	return &List[T]{Data: data, Pagination: Pagination{Count: len(data), Offset: offset, Total: total}}
}
