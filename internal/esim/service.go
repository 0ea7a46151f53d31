package esim

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/idempotency"
)

// Store is what the service keeps its data in: the ESIMStore, the cancel of unused
// eSIMs (ESIMCancelStore) and their history (ESIMHistoryStore), the account's eSIM
// settings (ESIMSettingsStore), the due expiry warnings (ESIMWarningStore), the
// account's billing settings and statements (BillingStore), the idempotency records
// that create-booking uses too, and accounts (admin calls answer 404 for an unknown
// account). internal/sqlite and internal/postgres implement it.
type Store interface {
	skygate.ESIMStore
	skygate.ESIMCancelStore
	skygate.ESIMHistoryStore
	skygate.ESIMSettingsStore
	skygate.ESIMWarningStore
	skygate.BillingStore
	idempotency.Records
	// Account is skygate.AccountStore's.
	Account(ctx context.Context, accountID string) (*skygate.Account, error)
}

// Sealer encrypts small secrets at rest; *seal.Box implements it.
type Sealer = skygate.Sealer

// Config is what a Service needs. Store and Sealer are required.
type Config struct {
	Store Store
	// Sealer seals matching IDs: seal.New(master.DeriveKey(seal.PurposeESIMMatchingID)).
	Sealer Sealer
	// Clock defaults to time.Now.
	Clock skygate.Clock
	// StatementChunk is how many ledger lines Statement reads at a time; 0 is
	// DefaultStatementChunk.
	StatementChunk int
	// PublicURL is the service's public base URL (SKYGATE_PUBLIC_URL), which install
	// links' page_url starts with.
	PublicURL string
	// InstallKey keys the install-page tokens (install.go):
	// master.DeriveKey(seal.PurposeESIMInstallLink). Without it the owner's reads carry
	// no install links and every install page is not found.
	InstallKey []byte
}

// Service is the eSIM logic. It is safe for concurrent use.
type Service struct {
	store          Store
	sealer         Sealer
	now            skygate.Clock
	statementChunk int
	publicURL      string
	installKey     []byte
}

// New returns a Service.
func New(cfg Config) *Service {
	s := &Service{store: cfg.Store, sealer: cfg.Sealer, now: cfg.Clock, statementChunk: cfg.StatementChunk,
		publicURL: strings.TrimSuffix(cfg.PublicURL, "/"), installKey: bytes.Clone(cfg.InstallKey)}
	if s.now == nil {
		s.now = time.Now
	}
	if s.statementChunk <= 0 {
		s.statementChunk = DefaultStatementChunk
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

// filler prepares eSIMs for a reader: present for their owner, name for an employee.
type filler func(ctx context.Context, accountID, lang string, esims ...*skygate.ESIM) error

// present prepares eSIMs for their owner: activation codes revealed with their
// install links (install.go) and each eSIM's package in lang, from one read of the
// account's catalog. A Canceled eSIM was refunded and its profile is never to be
// installed, so it carries neither: its matching ID, activation code and install links
// stay empty (absent from the JSON). Admin reads (name) and webhooks never carry
// either.
func (s *Service) present(ctx context.Context, accountID, lang string, esims ...*skygate.ESIM) error {
	for _, e := range esims {
		if e.Status == skygate.ESIMCanceled {
			continue
		}
		if err := s.reveal(e); err != nil {
			return err
		}
		s.installLinks(accountID, e)
	}
	return s.name(ctx, accountID, lang, esims...)
}

// name fills each eSIM's package in lang (one of skygate.Languages; anything else is
// en) and its RefundableUntil (nil when a cancel could not refund it now), from one
// read of the account's catalog.
func (s *Service) name(ctx context.Context, accountID, lang string, esims ...*skygate.ESIM) error {
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
	now := s.now()
	for _, e := range esims {
		e.RefundableUntil = refundableUntil(e, now)
		if p := pkgs[e.PackageID]; p != nil {
			e.Package = packageItem(p, skygate.Language(lang))
		}
	}
	return nil
}

// idempotent checks key and returns the account's idempotency request for operation,
// whose fingerprint covers request, the typed request in its JSON form: two bodies
// that mean the same request (a field left out or sent empty) are one request.
func idempotent(accountID, operation, key string, request any) (idempotency.Request, error) {
	req := idempotency.Request{AccountID: accountID, Operation: operation, Key: key}
	if err := idempotency.ValidateKey(key); err != nil {
		return req, err
	}
	var err error
	req.Fingerprint, err = idempotency.FingerprintOf(request)
	return req, err
}

// notFoundESIM is the answer for an unknown ICCID, one of another account, or a path
// value that cannot be an ICCID.
func notFoundESIM() error { return skygate.Errorf(skygate.CodeNotFound, "eSIM not found") }

// stored is t as the store keeps it, so that what a write returns equals a later read.
func stored(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// Pagination says which part of a list is answered (skygate.Pagination).
type Pagination = skygate.Pagination
