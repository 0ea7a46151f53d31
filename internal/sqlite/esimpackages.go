package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

var _ skygate.ESIMStore = (*Store)(nil)

// esimPackageNotFound is the public message of a missing package, including one of
// another account.
const esimPackageNotFound = "eSIM package not found"

// esimPackageColumns are the columns sqlstore.ScanESIMPackage reads.
const esimPackageColumns = `id, account_id, seq, name, countries, data_mb, validity_days,
	price_amount, price_currency, top_up, active, created_at, updated_at`

const (
	bumpESIMCatalog = `INSERT INTO esim_catalogs (account_id, version, updated_at)
		VALUES (?, 1, ?)
		ON CONFLICT (account_id) DO UPDATE SET version = esim_catalogs.version + 1,
			updated_at = excluded.updated_at`
	selectESIMCatalogVersion = `SELECT version, updated_at FROM esim_catalogs WHERE account_id = ?`
	selectLastESIMPackageSeq = `SELECT coalesce(max(seq), 0) FROM esim_packages WHERE account_id = ?`
	// The WHERE of DO UPDATE leaves another account's package alone; then nothing is
	// returned and the ID counts as taken.
	upsertESIMPackage = `INSERT INTO esim_packages (` + esimPackageColumns + `)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET name = excluded.name, countries = excluded.countries,
			data_mb = excluded.data_mb, validity_days = excluded.validity_days,
			price_amount = excluded.price_amount, price_currency = excluded.price_currency,
			top_up = excluded.top_up, active = excluded.active, updated_at = excluded.updated_at
		WHERE esim_packages.account_id = excluded.account_id
		RETURNING created_at`
	selectESIMPackages = `SELECT ` + esimPackageColumns + ` FROM esim_packages
		WHERE account_id = ? ORDER BY seq, id`
	selectESIMPackage = `SELECT ` + esimPackageColumns + ` FROM esim_packages
		WHERE account_id = ? AND id = ?`
	// selectPricedPackage reads what an order or a top-up takes from its package, with
	// the account's balance in the package's currency (zero without one).
	selectPricedPackage = `SELECT p.name, p.data_mb, p.validity_days, p.price_amount,
			p.price_currency, p.active, coalesce(b.amount, 0)
		FROM esim_packages p LEFT JOIN esim_balances b
			ON b.account_id = p.account_id AND b.currency = p.price_currency
		WHERE p.account_id = ? AND p.id = ?`
)

// SetESIMPackages implements skygate.ESIMStore.
func (s *Store) SetESIMPackages(ctx context.Context, accountID string, pkgs []*skygate.ESIMPackage, now time.Time, audit *skygate.AuditEvent) (*skygate.ESIMCatalog, error) {
	now = sqlstore.UTC(now)
	var cat *skygate.ESIMCatalog
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, bumpESIMCatalog, accountID, micros(now)); err != nil {
			return err
		}
		// New packages go after the existing ones in list order; an update keeps its
		// place. The single writer keeps concurrent calls from sharing a seq.
		var last int64
		if err := tx.QueryRowContext(ctx, selectLastESIMPackageSeq, accountID).Scan(&last); err != nil {
			return err
		}
		for i, p := range pkgs {
			p.AccountID, p.UpdatedAt = accountID, now
			if p.Countries == nil {
				p.Countries = []string{}
			}
			name, err := sqlstore.JSONText(p.Name)
			if err != nil {
				return err
			}
			countries, err := sqlstore.JSONText(p.Countries)
			if err != nil {
				return err
			}
			err = tx.QueryRowContext(ctx, upsertESIMPackage,
				p.ID, accountID, last+int64(i)+1, name, countries, p.DataMB, p.ValidityDays,
				p.Price.Amount, p.Price.Currency, p.TopUp, p.Active, micros(now), micros(now)).Scan(sqlstore.TimeCol(&p.CreatedAt))
			if errors.Is(err, sql.ErrNoRows) {
				return skygate.Errorf(skygate.CodeConflict, "the package id %s is taken by another account", p.ID)
			}
			if err != nil {
				return err
			}
		}
		var err error
		if cat, err = readESIMCatalog(ctx, tx, accountID); err != nil {
			return err
		}
		return appendAudit(ctx, tx, audit)
	})
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "set eSIM packages", NotFound: accountNotFound}, err)
	}
	return cat, nil
}

// ESIMCatalog implements skygate.ESIMStore.
func (s *Store) ESIMCatalog(ctx context.Context, accountID string) (*skygate.ESIMCatalog, error) {
	var cat *skygate.ESIMCatalog
	err := s.inReadTx(ctx, func(tx *sql.Tx) error {
		var err error
		cat, err = readESIMCatalog(ctx, tx, accountID)
		return err
	})
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "get eSIM catalog"}, err)
	}
	return cat, nil
}

// readESIMCatalog reads the account's version and packages inside tx.
func readESIMCatalog(ctx context.Context, tx *sql.Tx, accountID string) (*skygate.ESIMCatalog, error) {
	cat := &skygate.ESIMCatalog{AccountID: accountID, Packages: []*skygate.ESIMPackage{}}
	err := tx.QueryRowContext(ctx, selectESIMCatalogVersion, accountID).Scan(&cat.Version, sqlstore.TimeCol(&cat.UpdatedAt))
	if errors.Is(err, sql.ErrNoRows) {
		return cat, nil
	}
	if err != nil {
		return nil, err
	}
	cat.Packages, err = sqlstore.QueryAll(ctx, tx, sqlstore.ScanESIMPackage, selectESIMPackages, accountID)
	return cat, err
}

// ESIMPackage implements skygate.ESIMStore.
func (s *Store) ESIMPackage(ctx context.Context, accountID, packageID string) (*skygate.ESIMPackage, error) {
	p, err := sqlstore.ScanESIMPackage(s.read.QueryRowContext(ctx, selectESIMPackage, accountID, packageID))
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "get eSIM package", NotFound: esimPackageNotFound}, err)
	}
	return p, nil
}

// packageTerms is what an order or a top-up takes from its package: the name its
// ledger line shows and what each eSIM gets; and the account's balance in the
// package's currency when it was read, for a check before the debit (which alone
// decides).
type packageTerms struct {
	nameEN       string
	dataMB       *int
	validityDays int
	balance      int64
}

// pricedPackage reads the terms of the account's package inside tx and checks that it
// is active and still costs price, so that a charge never differs from the price the
// caller showed.
func pricedPackage(ctx context.Context, tx *sql.Tx, accountID, packageID string, price skygate.Money) (packageTerms, error) {
	var (
		name   skygate.LocalizedText
		data   sql.NullInt64
		t      packageTerms
		cost   skygate.Money
		active bool
	)
	err := tx.QueryRowContext(ctx, selectPricedPackage, accountID, packageID).Scan(sqlstore.JSONCol(&name), &data,
		&t.validityDays, &cost.Amount, &cost.Currency, &active, &t.balance)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return t, sqlstore.NotFound(esimPackageNotFound)
	case err != nil:
		return t, err
	case !active: // retired since the service looked
		return t, skygate.ValidationError(skygate.FieldError{Field: "package_id", Message: "is not available any more"})
	case cost != price:
		return t, skygate.Errorf(skygate.CodeConflict, "the package's price changed to %d %s; retry",
			cost.Amount, cost.Currency)
	}
	t.nameEN = name.EN
	if data.Valid {
		n := int(data.Int64)
		t.dataMB = &n
	}
	return t, nil
}
