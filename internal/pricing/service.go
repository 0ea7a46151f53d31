package pricing

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/catalog"
)

// Limits of the admin writes.
const (
	// MaxPrices bounds one price list.
	MaxPrices = 1000
	// MaxCapacity bounds a capacity per slot.
	MaxCapacity = 10000
)

// Store is what the service keeps its data in. internal/sqlite and internal/postgres
// implement it.
type Store interface {
	skygate.PriceStore
	skygate.CapacityStore
	// Account is skygate.AccountStore's: admin calls answer 404 for an unknown account.
	Account(ctx context.Context, accountID string) (*skygate.Account, error)
}

// Catalog is what the service reads of the current airport catalog; *catalog.Service
// implements it.
type Catalog interface {
	// FastTrackInfo's ok says whether the fast-track is in the catalog.
	FastTrackInfo(id string) (requiredBookingInfo []string, active bool, ok bool)
	// CatalogCapacity is the capacity per slot of the fast-track's record.
	CatalogCapacity(id string) (capacity int, ok bool)
	PricedList(lang string, q catalog.Query, prices *skygate.PriceList) (*catalog.Page, error)
	PricedItem(lang, id string, prices *skygate.PriceList) (*catalog.Page, error)
	// FastTrackIDs lists the catalog's fast-tracks, for the demo price list and
	// FastTracks.
	FastTrackIDs() []string
	// LocalizedFastTrack is the fast-track in the response form in lang, or
	// CodeNotFound.
	LocalizedFastTrack(lang, id string) (*skygate.FastTrack, error)
}

// AdultPrice returns the account's adult price of the fast-track, or nil when the
// account has none for it.
func (s *Service) AdultPrice(ctx context.Context, accountID, fastTrackID string) (*skygate.Money, error) {
	p, _, err := s.store.PriceFor(ctx, accountID, fastTrackID)
	if p == nil || err != nil {
		return nil, err
	}
	return &skygate.Money{Amount: p.Adult, Currency: p.Currency}, nil
}

// Service is the pricing logic. It is safe for concurrent use.
type Service struct {
	store   Store
	catalog Catalog
	now     skygate.Clock
}

// New returns a Service over store and cat; a nil clock is time.Now.
func New(store Store, cat Catalog, now skygate.Clock) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: store, catalog: cat, now: now}
}

// PriceInput is one item of a price list as an employee sends it: child and infant
// default to adult when nil.
type PriceInput struct {
	FastTrackID string `json:"fast_track_id"`
	Currency    string `json:"currency"`
	Adult       int64  `json:"adult"`
	Child       *int64 `json:"child"`
	Infant      *int64 `json:"infant"`
}

// currencyPattern is an ISO 4217 code's form.
var currencyPattern = regexp.MustCompile(`^[A-Z]{3}$`)

// Prices returns the account's price list, or CodeNotFound for an unknown account.
func (s *Service) Prices(ctx context.Context, accountID string) (*skygate.PriceList, error) {
	if _, err := s.store.Account(ctx, accountID); err != nil {
		return nil, err
	}
	return s.store.FastTrackPrices(ctx, accountID)
}

// SetPrices replaces the account's price list with items (an empty, non-nil list
// removes it) and returns the list as stored. Nil items (a JSON null) is
// CodeValidation: removing every price takes an explicit []. Every problem of every item is reported at once as
// CodeValidation, fields named "[i].currency" and so on: at most MaxPrices items; a
// fast_track_id of the current catalog, named once; currency ISO 4217; adult
// 1..MaxMoneyAmount, child and infant 0..MaxMoneyAmount. An unknown account is
// CodeNotFound. The audit record (required) is committed with the change.
func (s *Service) SetPrices(ctx context.Context, accountID string, items []*PriceInput, audit *skygate.AuditEvent) (*skygate.PriceList, error) {
	if _, err := s.store.Account(ctx, accountID); err != nil {
		return nil, err
	}
	prices, err := s.validate(items)
	if err != nil {
		return nil, err
	}
	return s.store.SetFastTrackPrices(ctx, accountID, prices, s.now(), audit)
}

// validate resolves items into prices, or returns every problem at once.
func (s *Service) validate(items []*PriceInput) ([]skygate.FastTrackPrice, error) {
	if items == nil {
		return nil, skygate.ValidationError(skygate.FieldError{Field: "", Message: "must be an array of prices; [] removes the price list"})
	}
	if len(items) > MaxPrices {
		return nil, skygate.ValidationError(skygate.FieldError{Field: "", Message: fmt.Sprintf("must list at most %d prices", MaxPrices)})
	}
	var problems []skygate.FieldError
	seen := map[string]int{}
	prices := make([]skygate.FastTrackPrice, 0, len(items))
	for i, it := range items {
		prefix := fmt.Sprintf("[%d]", i)
		add := func(field, msg string) {
			problems = append(problems, skygate.FieldError{Field: prefix + "." + field, Message: msg})
		}
		if it == nil {
			problems = append(problems, skygate.FieldError{Field: prefix, Message: "must be an object"})
			continue
		}
		switch _, _, ok := s.catalog.FastTrackInfo(it.FastTrackID); {
		case it.FastTrackID == "":
			add("fast_track_id", "is required")
		case !ok:
			add("fast_track_id", "is not a fast-track of the catalog")
		}
		if j, dup := seen[it.FastTrackID]; dup && it.FastTrackID != "" {
			add("fast_track_id", fmt.Sprintf("repeats the fast-track of [%d]", j))
		} else {
			seen[it.FastTrackID] = i
		}
		if !currencyPattern.MatchString(it.Currency) {
			add("currency", "must be an ISO 4217 code of three capital letters")
		}
		if it.Adult < 1 || it.Adult > skygate.MaxMoneyAmount {
			add("adult", fmt.Sprintf("must be 1 to %d minor units", skygate.MaxMoneyAmount))
		}
		p := skygate.FastTrackPrice{FastTrackID: it.FastTrackID, Currency: it.Currency, Adult: it.Adult, Child: it.Adult, Infant: it.Adult}
		for _, f := range []struct {
			name string
			v    *int64
			dst  *int64
		}{{"child", it.Child, &p.Child}, {"infant", it.Infant, &p.Infant}} {
			if f.v == nil {
				continue
			}
			if *f.v < 0 || *f.v > skygate.MaxMoneyAmount {
				add(f.name, fmt.Sprintf("must be 0 to %d minor units", skygate.MaxMoneyAmount))
			}
			*f.dst = *f.v
		}
		prices = append(prices, p)
	}
	if problems != nil {
		return nil, skygate.ValidationError(problems...)
	}
	return prices, nil
}

// Capacity is a fast-track's capacity per one-hour slot as employees see it.
type Capacity struct {
	FastTrackID string `json:"fast_track_id"`
	// CapacityPerSlot is the capacity in force: the admin's when Overridden, else the
	// catalog record's.
	CapacityPerSlot        int  `json:"capacity_per_slot"`
	CatalogCapacityPerSlot int  `json:"catalog_capacity_per_slot"`
	Overridden             bool `json:"overridden"`
}

// Capacity returns the fast-track's capacity, or CodeNotFound for a fast-track not in
// the current catalog.
func (s *Service) Capacity(ctx context.Context, fastTrackID string) (*Capacity, error) {
	record, ok := s.catalog.CatalogCapacity(fastTrackID)
	if !ok {
		return nil, skygate.Errorf(skygate.CodeNotFound, "no fast-track with id %q", fastTrackID)
	}
	n, overridden, err := s.store.FastTrackCapacity(ctx, fastTrackID)
	if err != nil {
		return nil, err
	}
	c := &Capacity{FastTrackID: fastTrackID, CapacityPerSlot: record, CatalogCapacityPerSlot: record, Overridden: overridden}
	if overridden {
		c.CapacityPerSlot = n
	}
	return c, nil
}

// SetCapacity sets the fast-track's capacity per slot (0..MaxCapacity, else
// CodeValidation naming capacity_per_slot) for every account, and returns it as
// Capacity does. A fast-track not in the current catalog is CodeNotFound. The audit
// record (required) is committed with the change, its details given
// "capacity_per_slot" (the new capacity), "catalog_capacity_per_slot" (the catalog
// record's) and, from the store, "previous_capacity_per_slot" (the admin's capacity
// replaced, null when the catalog's applied).
func (s *Service) SetCapacity(ctx context.Context, fastTrackID string, capacity int, audit *skygate.AuditEvent) (*Capacity, error) {
	record, ok := s.catalog.CatalogCapacity(fastTrackID)
	if !ok {
		return nil, skygate.Errorf(skygate.CodeNotFound, "no fast-track with id %q", fastTrackID)
	}
	if capacity < 0 || capacity > MaxCapacity {
		return nil, skygate.ValidationError(skygate.FieldError{Field: "capacity_per_slot", Message: fmt.Sprintf("must be 0 to %d", MaxCapacity)})
	}
	if audit != nil { // the store refuses a write without a record
		if err := audit.AddDetails(map[string]any{"capacity_per_slot": capacity, "catalog_capacity_per_slot": record}); err != nil {
			return nil, err
		}
	}
	if err := s.store.SetFastTrackCapacity(ctx, fastTrackID, capacity, s.now(), audit); err != nil {
		return nil, err
	}
	return s.Capacity(ctx, fastTrackID)
}

// ResetCapacity removes the admin's capacity per slot of the fast-track, so that the
// catalog record's applies again to new bookings (those holding places keep them), and
// returns the capacity as Capacity does (not overridden). Resetting a fast-track that
// has none is no error. A fast-track not in the current catalog is CodeNotFound. The
// audit record (required) is committed with the change, its details given
// "catalog_capacity_per_slot" and, from the store, "previous_capacity_per_slot".
func (s *Service) ResetCapacity(ctx context.Context, fastTrackID string, audit *skygate.AuditEvent) (*Capacity, error) {
	record, ok := s.catalog.CatalogCapacity(fastTrackID)
	if !ok {
		return nil, skygate.Errorf(skygate.CodeNotFound, "no fast-track with id %q", fastTrackID)
	}
	if audit != nil { // the store refuses a write without a record
		if err := audit.AddDetails(map[string]any{"catalog_capacity_per_slot": record}); err != nil {
			return nil, err
		}
	}
	if err := s.store.DeleteFastTrackCapacity(ctx, fastTrackID, audit); err != nil {
		return nil, err
	}
	return s.Capacity(ctx, fastTrackID)
}

// FastTrackList is the fast-track catalog's list page for the account: each item
// carries the account's adult price, null without one.
func (s *Service) FastTrackList(ctx context.Context, accountID, lang string, q catalog.Query) (*catalog.Page, error) {
	prices, err := s.store.FastTrackPrices(ctx, accountID)
	if err != nil {
		return nil, err
	}
	return s.catalog.PricedList(lang, q, prices)
}

// FastTrackItem is FastTrackList's one item.
func (s *Service) FastTrackItem(ctx context.Context, accountID, lang, id string) (*catalog.Page, error) {
	prices, err := s.store.FastTrackPrices(ctx, accountID)
	if err != nil {
		return nil, err
	}
	return s.catalog.PricedItem(lang, id, prices)
}
