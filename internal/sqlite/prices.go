package sqlite

import (
	"context"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

var (
	_ skygate.PriceStore    = (*Store)(nil)
	_ skygate.CapacityStore = (*Store)(nil)
)

const (
	// The version row is written first in SetFastTrackPrices; the single writer runs
	// one replacement at a time.
	bumpPriceList = `INSERT INTO fast_track_price_lists (account_id, version, updated_at)
		VALUES (?, 1, ?)
		ON CONFLICT (account_id) DO UPDATE SET version = fast_track_price_lists.version + 1,
			updated_at = excluded.updated_at`
	clearPrices = `DELETE FROM fast_track_prices WHERE account_id = ?`
	insertPrice = `INSERT INTO fast_track_prices (account_id, fast_track_id, currency, adult, child, infant, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`
	selectPriceListVersion = `SELECT version, updated_at FROM fast_track_price_lists WHERE account_id = ?`
	selectPrices           = `SELECT fast_track_id, currency, adult, child, infant FROM fast_track_prices
		WHERE account_id = ? ORDER BY fast_track_id`

	upsertCapacity = `INSERT INTO fast_track_capacities (fast_track_id, capacity, updated_at)
		VALUES (?, ?, ?)
		ON CONFLICT (fast_track_id) DO UPDATE SET capacity = excluded.capacity, updated_at = excluded.updated_at`
	deleteCapacity   = `DELETE FROM fast_track_capacities WHERE fast_track_id = ?`
	selectCapacity   = `SELECT capacity FROM fast_track_capacities WHERE fast_track_id = ?`
	selectCapacities = `SELECT fast_track_id, capacity FROM fast_track_capacities`
)

// capacitySQL is the SQL of the admins' capacities (sqlstore.CapacitySQL).
var capacitySQL = sqlstore.CapacitySQL{Upsert: upsertCapacity, Delete: deleteCapacity, Lock: selectCapacity}

// priceSQL is the SQL of an account's price list (sqlstore.PriceSQL).
var priceSQL = sqlstore.PriceSQL{
	Bump: bumpPriceList, Clear: clearPrices, Insert: insertPrice,
	Version: selectPriceListVersion, Prices: selectPrices,
	PriceFor: `SELECT EXISTS (SELECT 1 FROM fast_track_prices WHERE account_id = ?1),
			p.fast_track_id, p.currency, p.adult, p.child, p.infant
		FROM (SELECT 1) AS one
			LEFT JOIN fast_track_prices p ON p.account_id = ?1 AND p.fast_track_id = ?2`,
}

// SetFastTrackPrices implements skygate.PriceStore.
func (s *Store) SetFastTrackPrices(ctx context.Context, accountID string, prices []skygate.FastTrackPrice, now time.Time, audit *skygate.AuditEvent) (*skygate.PriceList, error) {
	return sqlstore.SetFastTrackPrices(ctx, s.db, priceSQL, accountID, prices, now, audit)
}

// FastTrackPrices implements skygate.PriceStore.
func (s *Store) FastTrackPrices(ctx context.Context, accountID string) (*skygate.PriceList, error) {
	return sqlstore.FastTrackPrices(ctx, s.db, priceSQL, accountID)
}

// PriceFor implements skygate.PriceStore.
func (s *Store) PriceFor(ctx context.Context, accountID, fastTrackID string) (*skygate.FastTrackPrice, bool, error) {
	return sqlstore.PriceFor(ctx, s.db, priceSQL, accountID, fastTrackID)
}

// SetFastTrackCapacity implements skygate.CapacityStore.
func (s *Store) SetFastTrackCapacity(ctx context.Context, fastTrackID string, capacity int, now time.Time, audit *skygate.AuditEvent) error {
	return sqlstore.SetFastTrackCapacity(ctx, s.db, capacitySQL, fastTrackID, capacity, now, audit)
}

// DeleteFastTrackCapacity implements skygate.CapacityStore.
func (s *Store) DeleteFastTrackCapacity(ctx context.Context, fastTrackID string, audit *skygate.AuditEvent) error {
	return sqlstore.DeleteFastTrackCapacity(ctx, s.db, capacitySQL, fastTrackID, audit)
}

// FastTrackCapacity implements skygate.CapacityStore.
func (s *Store) FastTrackCapacity(ctx context.Context, fastTrackID string) (int, bool, error) {
	return sqlstore.FastTrackCapacity(ctx, s.db, selectCapacity, fastTrackID)
}

// FastTrackCapacities implements skygate.CapacityStore.
func (s *Store) FastTrackCapacities(ctx context.Context) (map[string]int, error) {
	return sqlstore.FastTrackCapacities(ctx, s.db, selectCapacities)
}
