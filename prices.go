package skygate

import (
	"context"
	"time"
)

// FastTrackPrice is an account's price of one fast-track, per passenger type, in
// integer minor units of Currency (ISO 4217). Child and Infant are resolved: the
// admin API defaults them to Adult when not given.
type FastTrackPrice struct {
	FastTrackID string `json:"fast_track_id"`
	Currency    string `json:"currency"`
	Adult       int64  `json:"adult"`
	Child       int64  `json:"child"`
	Infant      int64  `json:"infant"`
}

// For returns the price of a passenger of type t ("" is an adult).
func (p *FastTrackPrice) For(t PassengerType) int64 {
	switch t {
	case PassengerChild:
		return p.Child
	case PassengerInfant:
		return p.Infant
	default:
		return p.Adult
	}
}

// Total returns the price of passengers, in p's currency.
func (p *FastTrackPrice) Total(passengers []Passenger) Money {
	var sum int64
	for _, x := range passengers {
		sum += p.For(x.Type)
	}
	return Money{Amount: sum, Currency: p.Currency}
}

// PriceList is an account's prices of fast-tracks, ordered by FastTrackID. Version
// increases with every change of the list (0 for an account that never had one), so
// that responses showing prices can tell when they changed.
type PriceList struct {
	AccountID string           `json:"-"`
	Prices    []FastTrackPrice `json:"data"`
	Version   int64            `json:"-"`
	UpdatedAt *time.Time       `json:"-"`
}

// PriceStore keeps every account's fast-track price list. An account "has a price
// list" when it holds at least one price; then the money rules of bookings apply to
// it (commerce.go).
type PriceStore interface {
	// SetFastTrackPrices replaces the account's whole price list with prices at now
	// (an empty prices removes it) and commits audit's record (required) with it, its
	// details given "previous" (the list replaced) and "prices" (the list stored), each
	// an array of FastTrackPrice read in the write's transaction, so that the record
	// shows what changed. An unknown account is CodeNotFound. It returns the list as
	// stored.
	SetFastTrackPrices(ctx context.Context, accountID string, prices []FastTrackPrice, now time.Time, audit *AuditEvent) (*PriceList, error)
	// FastTrackPrices returns the account's price list (no prices and Version 0 when
	// it never had one).
	FastTrackPrices(ctx context.Context, accountID string) (*PriceList, error)
	// PriceFor answers, in one read, what pricing a booking needs: the account's
	// price of the fast-track (nil when it has none) and whether the account has a
	// price list at all.
	PriceFor(ctx context.Context, accountID, fastTrackID string) (price *FastTrackPrice, hasList bool, err error)
}

// CapacityStore keeps the admins' capacities per one-hour slot of fast-tracks. A
// capacity is the airport's, shared by every account (not tenant data); a fast-track
// without one has the capacity its catalog record gives (FastTrackRecord.CapacityPerSlot).
type CapacityStore interface {
	// SetFastTrackCapacity sets the fast-track's capacity per slot (≥ 0) at now,
	// replacing any earlier one, and commits audit's record (required) with it, its
	// details given "previous_capacity_per_slot": the capacity replaced, null when none
	// was set (the catalog's applied), read in the write's transaction. It does not
	// check that the fast-track is in the catalog: the caller does.
	SetFastTrackCapacity(ctx context.Context, fastTrackID string, capacity int, now time.Time, audit *AuditEvent) error
	// DeleteFastTrackCapacity removes the capacity per slot an admin set for the
	// fast-track, so that its catalog record's applies again, and commits audit's
	// record (required) with it, its details given "previous_capacity_per_slot" as in
	// SetFastTrackCapacity. Removing none is no error (the record is still written).
	// Bookings already holding places keep them.
	DeleteFastTrackCapacity(ctx context.Context, fastTrackID string, audit *AuditEvent) error
	// FastTrackCapacity returns the fast-track's capacity per slot set by an admin; ok
	// is false when none was set.
	FastTrackCapacity(ctx context.Context, fastTrackID string) (capacity int, ok bool, err error)
	// FastTrackCapacities returns every capacity per slot an admin set, by fast-track
	// id (an empty map when none was), whether or not the fast-track is still in the
	// catalog.
	FastTrackCapacities(ctx context.Context) (map[string]int, error)
}
