package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/skygate/skygate"
)

var _ skygate.ESIMStore = (*Store)(nil)

const esimPackageColumns = `id, account_id, seq, name, countries, data_mb, validity_days, price_amount,
	price_currency, top_up, active, created_at, updated_at`

var (
	// The version row is written first in SetESIMPackages, so on PostgreSQL its row lock
	// serialises concurrent changes of one account's catalog.
	qBumpESIMCatalog = newStmt(`INSERT INTO esim_catalogs (account_id, version, updated_at)
		VALUES (?, 1, ?)
		ON CONFLICT (account_id) DO UPDATE SET version = esim_catalogs.version + 1,
			updated_at = excluded.updated_at`)
	qESIMCatalogVersion = newStmt(`SELECT version, updated_at FROM esim_catalogs WHERE account_id = ?`)
	// The WHERE of DO UPDATE leaves another account's package alone; then nothing is
	// returned and the ID counts as taken.
	qUpsertESIMPackage = newStmt(`INSERT INTO esim_packages (` + esimPackageColumns + `)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET name = excluded.name, countries = excluded.countries,
			data_mb = excluded.data_mb, validity_days = excluded.validity_days,
			price_amount = excluded.price_amount, price_currency = excluded.price_currency,
			top_up = excluded.top_up, active = excluded.active, updated_at = excluded.updated_at
		WHERE esim_packages.account_id = excluded.account_id
		RETURNING created_at`)
	qESIMPackages = newStmt(`SELECT ` + esimPackageColumns + ` FROM esim_packages
		WHERE account_id = ? ORDER BY seq, id`)
	qLastESIMPackageSeq = newStmt(`SELECT COALESCE(MAX(seq), 0) FROM esim_packages WHERE account_id = ?`)
	qESIMPackage        = newStmt(`SELECT ` + esimPackageColumns + ` FROM esim_packages
		WHERE account_id = ? AND id = ?`)
	// qPricedPackage reads what an order or a top-up takes from its package inside
	// the write transaction, and no more: decoding the countries and timestamps there
	// would hold the one SQLite writer. With it comes the account's balance in the
	// package's currency (zero without one), read without a lock.
	qPricedPackage = newStmt(`SELECT p.name, p.data_mb, p.validity_days, p.price_amount, p.price_currency,
			p.active, COALESCE(b.amount, 0)
		FROM esim_packages p LEFT JOIN esim_balances b
			ON b.account_id = p.account_id AND b.currency = p.price_currency
		WHERE p.account_id = ? AND p.id = ?`)
)

// esimPackageNotFound is the public message of a missing package, including one of
// another account.
const esimPackageNotFound = "eSIM package not found"

// scanESIMPackage reads one row of esimPackageColumns.
func scanESIMPackage(row scanner) (*skygate.ESIMPackage, error) {
	var (
		p    skygate.ESIMPackage
		seq  int64
		data sql.NullInt64
	)
	err := row.Scan(&p.ID, &p.AccountID, &seq, jsonCol{&p.Name}, jsonCol{&p.Countries}, &data, &p.ValidityDays,
		&p.Price.Amount, &p.Price.Currency, &p.TopUp, &p.Active, timeCol{&p.CreatedAt}, timeCol{&p.UpdatedAt})
	if err != nil {
		return nil, err
	}
	p.DataMB = nullInt(data)
	if p.Countries == nil {
		p.Countries = []string{}
	}
	return &p, nil
}

// SetESIMPackages implements skygate.ESIMStore.
func (s *Store) SetESIMPackages(ctx context.Context, accountID string, pkgs []*skygate.ESIMPackage, now time.Time, audit *skygate.AuditEvent) (*skygate.ESIMCatalog, error) {
	now = utc(now)
	var cat *skygate.ESIMCatalog
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.q(qBumpESIMCatalog), accountID, s.time(now)); err != nil {
			return err
		}
		// New packages go after the existing ones in list order; an update keeps its
		// place. The catalog row locked above keeps concurrent calls from sharing a seq.
		var last int64
		if err := tx.QueryRowContext(ctx, s.q(qLastESIMPackageSeq), accountID).Scan(&last); err != nil {
			return err
		}
		for i, p := range pkgs {
			p.AccountID, p.UpdatedAt = accountID, now
			if p.Countries == nil {
				p.Countries = []string{}
			}
			name, err := jsonText(p.Name)
			if err != nil {
				return err
			}
			countries, err := jsonText(p.Countries)
			if err != nil {
				return err
			}
			err = tx.QueryRowContext(ctx, s.q(qUpsertESIMPackage),
				p.ID, accountID, last+int64(i)+1, name, countries, intArg(p.DataMB), p.ValidityDays, p.Price.Amount,
				p.Price.Currency, p.TopUp, p.Active, s.time(now), s.time(now)).Scan(timeCol{&p.CreatedAt})
			if errors.Is(err, sql.ErrNoRows) {
				return skygate.Errorf(skygate.CodeConflict, "the package id %s is taken by another account", p.ID)
			}
			if err != nil {
				return err
			}
		}
		var err error
		if cat, err = s.readESIMCatalog(ctx, tx, accountID); err != nil {
			return err
		}
		return s.appendAudit(ctx, tx, audit)
	})
	if err != nil {
		return nil, s.interpret(outcome{op: "set eSIM packages", notFound: accountNotFound}, err)
	}
	return cat, nil
}

// ESIMCatalog implements skygate.ESIMStore.
func (s *Store) ESIMCatalog(ctx context.Context, accountID string) (*skygate.ESIMCatalog, error) {
	var cat *skygate.ESIMCatalog
	err := s.inReadTx(ctx, func(tx *sql.Tx) error {
		var err error
		cat, err = s.readESIMCatalog(ctx, tx, accountID)
		return err
	})
	if err != nil {
		return nil, s.interpret(outcome{op: "get eSIM catalog"}, err)
	}
	return cat, nil
}

// readESIMCatalog reads the account's version and packages inside tx.
func (s *Store) readESIMCatalog(ctx context.Context, tx *sql.Tx, accountID string) (*skygate.ESIMCatalog, error) {
	cat := &skygate.ESIMCatalog{AccountID: accountID, Packages: []*skygate.ESIMPackage{}}
	err := tx.QueryRowContext(ctx, s.q(qESIMCatalogVersion), accountID).Scan(&cat.Version, timeCol{&cat.UpdatedAt})
	if errors.Is(err, sql.ErrNoRows) {
		return cat, nil
	}
	if err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, s.q(qESIMPackages), accountID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		p, err := scanESIMPackage(rows)
		if err != nil {
			return nil, err
		}
		cat.Packages = append(cat.Packages, p)
	}
	return cat, rows.Err()
}

// ESIMPackage implements skygate.ESIMStore.
func (s *Store) ESIMPackage(ctx context.Context, accountID, packageID string) (*skygate.ESIMPackage, error) {
	p, err := scanESIMPackage(s.read.QueryRowContext(ctx, s.q(qESIMPackage), accountID, packageID))
	if err != nil {
		return nil, s.interpret(outcome{op: "get eSIM package", notFound: esimPackageNotFound}, err)
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
func (s *Store) pricedPackage(ctx context.Context, tx *sql.Tx, accountID, packageID string, price skygate.Money) (packageTerms, error) {
	var (
		name   skygate.LocalizedText
		data   sql.NullInt64
		t      packageTerms
		cost   skygate.Money
		active bool
	)
	err := tx.QueryRowContext(ctx, s.q(qPricedPackage), accountID, packageID).Scan(jsonCol{&name}, &data,
		&t.validityDays, &cost.Amount, &cost.Currency, &active, &t.balance)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return t, notFound(esimPackageNotFound)
	case err != nil:
		return t, err
	case !active: // retired since the service looked
		return t, skygate.ValidationError(skygate.FieldError{Field: "package_id", Message: "is not available any more"})
	case cost != price:
		return t, skygate.Errorf(skygate.CodeConflict, "the package's price changed to %d %s; retry",
			cost.Amount, cost.Currency)
	}
	t.nameEN, t.dataMB = name.EN, nullInt(data)
	return t, nil
}

// nullInt returns the value of a nullable integer column, nil for NULL.
func nullInt(v sql.NullInt64) *int {
	if !v.Valid {
		return nil
	}
	n := int(v.Int64)
	return &n
}

// intArg returns the stored form of an optional integer: NULL for nil.
func intArg(p *int) any {
	if p == nil {
		return nil
	}
	return int64(*p)
}

// dynamic rebinds a query built at run time (an IN list of variable length).
func (s *Store) dynamic(query string) string { return rebind(s.d.Placeholder, query) }
