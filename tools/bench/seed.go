package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/config"
	"github.com/skygate/skygate/internal/esim"
	"github.com/skygate/skygate/internal/postgres"
	"github.com/skygate/skygate/internal/seal"
	"github.com/skygate/skygate/internal/sqlite"
)

// seedStore is what the seeds write through: a store of either engine.
type seedStore interface {
	esim.Store
	skygate.PriceStore
	skygate.CapacityStore
	Close() error
}

// seedKeys are the sealers the seeds need: the store's records and the eSIM matching
// ids, derived from benchMasterKey as the server derives them.
type seedKeys struct {
	records, matching *seal.Box
}

func benchSeedKeys() (seedKeys, error) {
	master, err := config.ParseMasterKey(benchMasterKey)
	if err != nil {
		return seedKeys{}, err
	}
	box, err := seal.New(master)
	if err != nil {
		return seedKeys{}, err
	}
	matching, err := seal.New(box.DeriveKey(seal.PurposeESIMMatchingID))
	if err != nil {
		return seedKeys{}, err
	}
	records, err := seal.New(box.DeriveKey(seal.PurposeStoreRecords))
	if err != nil {
		return seedKeys{}, err
	}
	return seedKeys{records: records, matching: matching}, nil
}

// openSeedStore opens the server's database as a second process, as `skygate
// bootstrap` does. The caller closes it.
func openSeedStore(ctx context.Context, databaseURL string, keys seedKeys) (seedStore, error) {
	if path, ok := strings.CutPrefix(databaseURL, "sqlite://"); ok {
		return sqlite.Open(ctx, path, keys.records, nil)
	}
	return postgres.Open(ctx, databaseURL, 0, keys.records, nil)
}

// benchAudit returns the record of an admin write of the seeds: the stores refuse
// such writes without one.
func benchAudit(accountID, action, targetType, targetID string) *skygate.AuditEvent {
	e, _ := skygate.Actor{Subject: "skygate-bench"}.Audit(time.Now(), action, targetType, targetID, accountID, nil)
	return e
}

// seedESIM gives the account one package, a pool of n profiles and a balance for
// them, the way the admin API would, and returns the package id.
func seedESIM(ctx context.Context, databaseURL, accountID string, n int) (string, error) {
	keys, err := benchSeedKeys()
	if err != nil {
		return "", err
	}
	db, err := openSeedStore(ctx, databaseURL, keys)
	if err != nil {
		return "", err
	}
	defer func() { _ = db.Close() }() // the seed's own error is checked
	svc := esim.New(esim.Config{Store: db, Sealer: keys.matching})
	audit := func(action string) *skygate.AuditEvent { return benchAudit(accountID, action, "account", accountID) }
	pkg := esim.DemoPackages(accountID)[0]
	if _, err := svc.SetPackages(ctx, accountID, []*skygate.ESIMPackage{pkg}, audit("esim.packages.set")); err != nil {
		return "", err
	}
	for start := 0; start < n; start += esim.MaxPoolUpload {
		batch := make([]esim.ProfileInput, 0, min(esim.MaxPoolUpload, n-start))
		for i := start; i < n && len(batch) < cap(batch); i++ {
			payload := fmt.Sprintf("8999902%011d", i)
			batch = append(batch, esim.ProfileInput{
				ICCID: payload + string(skygate.LuhnCheckDigit(payload)), SMDPAddress: esim.DemoSMDPAddress,
				MatchingID: fmt.Sprintf("BENCH-%d", i),
			})
		}
		if _, err := svc.ImportPool(ctx, accountID, batch, audit("esim.pool.import")); err != nil {
			return "", err
		}
	}
	credit := skygate.Money{Amount: pkg.Price.Amount * int64(n+1), Currency: pkg.Price.Currency}
	if _, err := svc.AddCredit(ctx, accountID, esim.CreditRequest{Amount: credit, Kind: skygate.LedgerCredit, Reference: "bench", Description: "skygate-bench"}, audit("esim.credit")); err != nil {
		return "", err
	}
	return pkg.ID, nil
}

// Prices of the booking-priced scenario, in US cents.
const (
	benchAdultPrice = 3500
	benchChildPrice = 2500
	// benchBookingCredit pays for 28 million adult bookings: no run spends it.
	benchBookingCredit = 100_000_000_000
	// benchSlotCapacity is the admin capacity of the priced fast-track's slots, the
	// largest the admin API allows: with creates spread over benchSlots, none fills.
	benchSlotCapacity = 10000
)

// seedPricedBooking makes the account book the fast-track as a priced partner does,
// the way the admin API would: a price list for it, an admin capacity of
// benchSlotCapacity per slot, and a prepaid credit in the price's currency that every
// create reserves from.
func seedPricedBooking(ctx context.Context, databaseURL, accountID, fastTrackID string) error {
	keys, err := benchSeedKeys()
	if err != nil {
		return err
	}
	db, err := openSeedStore(ctx, databaseURL, keys)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }() // the seed's own error is checked
	now := time.Now()
	prices := []skygate.FastTrackPrice{{FastTrackID: fastTrackID, Currency: "USD", Adult: benchAdultPrice, Child: benchChildPrice, Infant: 0}}
	if _, err := db.SetFastTrackPrices(ctx, accountID, prices, now, benchAudit(accountID, "fast_track.prices.set", "account", accountID)); err != nil {
		return fmt.Errorf("price list: %w", err)
	}
	if err := db.SetFastTrackCapacity(ctx, fastTrackID, benchSlotCapacity, now, benchAudit("", "fast_track.capacity.set", "fast_track", fastTrackID)); err != nil {
		return fmt.Errorf("capacity: %w", err)
	}
	svc := esim.New(esim.Config{Store: db, Sealer: keys.matching})
	credit := esim.CreditRequest{Amount: skygate.Money{Amount: benchBookingCredit, Currency: "USD"}, Kind: skygate.LedgerCredit,
		Reference: "bench-booking", Description: "skygate-bench priced bookings"}
	if _, err := svc.AddCredit(ctx, accountID, credit, benchAudit(accountID, "esim.credit", "account", accountID)); err != nil {
		return fmt.Errorf("credit: %w", err)
	}
	return nil
}
