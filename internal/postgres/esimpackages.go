package postgres

import (
	"context"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

var _ skygate.ESIMStore = (*Store)(nil)

// esimPackageColumns are the columns sqlstore.ScanESIMPackage reads.
const esimPackageColumns = `id, account_id, seq, name, countries, data_mb, validity_days,
	price_amount, price_currency, top_up, active, created_at, updated_at, apn, refund_window_days`

const (
	// The version row is written first in SetESIMPackages, so its row lock serialises
	// concurrent changes of one account's catalog.
	bumpESIMCatalog = `INSERT INTO esim_catalogs (account_id, version, updated_at)
		VALUES ($1, 1, $2)
		ON CONFLICT (account_id) DO UPDATE SET version = esim_catalogs.version + 1,
			updated_at = excluded.updated_at`
	selectESIMCatalogVersion = `SELECT version, updated_at FROM esim_catalogs WHERE account_id = $1`
	selectLastESIMPackageSeq = `SELECT coalesce(max(seq), 0) FROM esim_packages WHERE account_id = $1`
	// The WHERE of DO UPDATE leaves another account's package alone; then nothing is
	// returned and the ID counts as taken. A NULL refund window ($15) keeps the
	// stored one; a new package takes $14.
	upsertESIMPackage = `INSERT INTO esim_packages (` + esimPackageColumns + `)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12, $13, $14)
		ON CONFLICT (id) DO UPDATE SET name = excluded.name, countries = excluded.countries,
			data_mb = excluded.data_mb, validity_days = excluded.validity_days,
			price_amount = excluded.price_amount, price_currency = excluded.price_currency,
			top_up = excluded.top_up, active = excluded.active, updated_at = excluded.updated_at,
			apn = excluded.apn,
			refund_window_days = coalesce($15, esim_packages.refund_window_days)
		WHERE esim_packages.account_id = excluded.account_id
		RETURNING created_at, refund_window_days`
	selectESIMPackages = `SELECT ` + esimPackageColumns + ` FROM esim_packages
		WHERE account_id = $1 ORDER BY seq, id`
	selectESIMPackage = `SELECT ` + esimPackageColumns + ` FROM esim_packages
		WHERE account_id = $1 AND id = $2`
	// selectPricedPackage reads what an order or a top-up takes from its package, with
	// the account's balance in the package's currency (zero without one), read
	// without a lock.
	selectPricedPackage = `SELECT p.name, p.data_mb, p.validity_days, p.price_amount,
			p.price_currency, p.active, p.refund_window_days, coalesce(b.amount, 0)
		FROM esim_packages p LEFT JOIN esim_balances b
			ON b.account_id = p.account_id AND b.currency = p.price_currency
		WHERE p.account_id = $1 AND p.id = $2`
)

// packageSQL is the SQL of an account's eSIM catalog (sqlstore.PackageSQL).
var packageSQL = sqlstore.PackageSQL{
	Bump: bumpESIMCatalog, LastSeq: selectLastESIMPackageSeq, Upsert: upsertESIMPackage,
	Version: selectESIMCatalogVersion, Packages: selectESIMPackages,
}

// SetESIMPackages implements skygate.ESIMStore.
func (s *Store) SetESIMPackages(ctx context.Context, accountID string, pkgs []*skygate.ESIMPackage, now time.Time, audit *skygate.AuditEvent) (*skygate.ESIMCatalog, error) {
	return sqlstore.SetESIMPackages(ctx, s.db, packageSQL, accountID, pkgs, now, audit)
}

// ESIMCatalog implements skygate.ESIMStore.
func (s *Store) ESIMCatalog(ctx context.Context, accountID string) (*skygate.ESIMCatalog, error) {
	return sqlstore.ESIMCatalog(ctx, s.db, packageSQL, accountID)
}

// ESIMPackage implements skygate.ESIMStore.
func (s *Store) ESIMPackage(ctx context.Context, accountID, packageID string) (*skygate.ESIMPackage, error) {
	return sqlstore.Get(ctx, s.db, sqlstore.Outcome{Op: "get eSIM package", NotFound: sqlstore.ESIMPackageNotFound},
		sqlstore.ScanESIMPackage, selectESIMPackage, accountID, packageID)
}
