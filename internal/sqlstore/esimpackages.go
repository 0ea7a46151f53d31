package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/skygate/skygate"
)

// The flows of an account's eSIM packages, its prepaid balances and its ledger.

// ESIMPackageNotFound is the public message of a missing package, including one of
// another account.
const ESIMPackageNotFound = "eSIM package not found"

// PackageSQL is an engine's statements of an account's eSIM catalog, each taking the
// account first. Bump (account_id, now) adds one to the catalog's version, creating it
// at 1, and must come first in SetESIMPackages, so that it serialises concurrent
// changes of one account's catalog; LastSeq reads the highest seq of the account's
// packages, 0 for none; Upsert (the columns ScanESIMPackage reads up to active, the
// time of both created_at and updated_at, then apn as JSON or NULL, refund_window_days
// of a new package and refund_window_days or NULL) writes a package, keeping the
// created_at and seq of an existing one, and its refund_window_days when given NULL,
// and returns its created_at and refund_window_days, or no row when
// the id is another account's package; Version reads the catalog's version and
// updated_at; Packages reads the account's packages by seq, in ScanESIMPackage's
// columns.
type PackageSQL struct {
	Bump, LastSeq, Upsert, Version, Packages string
}

// SetESIMPackages is skygate.ESIMStore's SetESIMPackages. New packages go after the
// existing ones in list order; an update keeps its place.
func SetESIMPackages(ctx context.Context, db *DB, q PackageSQL, accountID string, pkgs []*skygate.ESIMPackage, now time.Time, audit *skygate.AuditEvent) (*skygate.ESIMCatalog, error) {
	if err := Audited("set eSIM packages", audit); err != nil {
		return nil, err
	}
	now = UTC(now)
	var cat *skygate.ESIMCatalog
	err := db.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.ExecContext(ctx, q.Bump, accountID, db.Time(now)); err != nil {
			return err
		}
		var last int64
		if err := tx.QueryRowContext(ctx, q.LastSeq, accountID).Scan(&last); err != nil {
			return err
		}
		for i, p := range pkgs {
			p.AccountID, p.UpdatedAt = accountID, now
			if p.Countries == nil {
				p.Countries = []string{}
			}
			name, err := JSONText(p.Name)
			if err != nil {
				return err
			}
			countries, err := JSONText(p.Countries)
			if err != nil {
				return err
			}
			var apn sql.NullString
			if p.APN != nil {
				if apn.String, err = JSONText(p.APN); err != nil {
					return err
				}
				apn.Valid = true
			}
			var window int
			err = tx.QueryRowContext(ctx, q.Upsert,
				p.ID, accountID, last+int64(i)+1, name, countries, p.DataMB, p.ValidityDays,
				p.Price.Amount, p.Price.Currency, p.TopUp, p.Active, db.Time(now), apn,
				p.RefundWindow(), p.RefundWindowDays).Scan(timeCol{&p.CreatedAt}, &window)
			if errors.Is(err, sql.ErrNoRows) {
				return skygate.Errorf(skygate.CodeConflict, "the package id %s is taken by another account", p.ID)
			}
			if err != nil {
				return err
			}
			p.RefundWindowDays = &window // as stored, like CreatedAt
		}
		var err error
		if cat, err = readESIMCatalog(ctx, tx, q, accountID); err != nil {
			return err
		}
		return db.Audit(ctx, tx, audit)
	})
	if err != nil {
		return nil, db.Interpret(Outcome{Op: "set eSIM packages", NotFound: AccountNotFound}, err)
	}
	return cat, nil
}

// ESIMCatalog is skygate.ESIMStore's ESIMCatalog.
func ESIMCatalog(ctx context.Context, db *DB, q PackageSQL, accountID string) (*skygate.ESIMCatalog, error) {
	var cat *skygate.ESIMCatalog
	err := inReadTx(ctx, db, func(tx *sql.Tx) error {
		var err error
		cat, err = readESIMCatalog(ctx, tx, q, accountID)
		return err
	})
	if err != nil {
		return nil, db.Interpret(Outcome{Op: "get eSIM catalog"}, err)
	}
	return cat, nil
}

// readESIMCatalog reads the account's version and packages inside tx.
func readESIMCatalog(ctx context.Context, tx Queryer, q PackageSQL, accountID string) (*skygate.ESIMCatalog, error) {
	cat := &skygate.ESIMCatalog{AccountID: accountID, Packages: []*skygate.ESIMPackage{}}
	err := tx.QueryRowContext(ctx, q.Version, accountID).Scan(&cat.Version, timeCol{&cat.UpdatedAt})
	if errors.Is(err, sql.ErrNoRows) {
		return cat, nil
	}
	if err != nil {
		return nil, err
	}
	cat.Packages, err = QueryAll(ctx, tx, ScanESIMPackage, q.Packages, accountID)
	return cat, err
}

// packageTerms is what an order or a top-up takes from its package: the name its
// ledger line shows and what each eSIM gets; and the account's balance in the
// package's currency when it was read, for a check before the debit (which alone
// decides).
type packageTerms struct {
	nameEN       string
	dataMB       *int
	validityDays int
	refundWindow int
	balance      int64
}

// pricedPackage reads the terms of the account's package inside tx with priced
// (account_id, id: name, data_mb, validity_days, price_amount, price_currency, active,
// refund_window_days and the account's balance in that currency, zero without one) and checks that it is
// active and still costs price, so that a charge never differs from the price the
// caller showed.
func pricedPackage(ctx context.Context, tx *Tx, priced, accountID, packageID string, price skygate.Money) (packageTerms, error) {
	var (
		name   skygate.LocalizedText
		data   sql.NullInt64
		t      packageTerms
		cost   skygate.Money
		active bool
	)
	err := tx.QueryRowContext(ctx, priced, accountID, packageID).Scan(jsonCol{&name}, &data,
		&t.validityDays, &cost.Amount, &cost.Currency, &active, &t.refundWindow, &t.balance)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return t, notFound(ESIMPackageNotFound)
	case err != nil:
		return t, err
	case !active: // retired since the service looked
		return t, skygate.ValidationError(skygate.FieldError{Field: "package_id", Message: "is not available any more"})
	case cost != price:
		return t, skygate.Errorf(skygate.CodeConflict, "the package's price changed to %d %s; retry",
			cost.Amount, cost.Currency)
	}
	t.nameEN = name.EN
	t.dataMB = nullInt(data)
	return t, nil
}

// Charge debits price from the account's available balance inside tx and appends the
// charge, at now, to the ledger with reference and description, or returns
// InsufficientFunds(price); a debit across the account's low-balance threshold writes
// billing.balance.low (Debited) with livemode, that of what was bought. The flows call
// it last, for a price that is not zero.
type Charge func(ctx context.Context, tx *Tx, accountID string, price skygate.Money, livemode bool, reference, description string, now time.Time) error

// InsufficientFunds is the CodeInsufficientFunds error of a balance that does not
// cover price.
func InsufficientFunds(price skygate.Money) error {
	return skygate.Errorf(skygate.CodeInsufficientFunds,
		"the %s balance does not cover %d minor units", price.Currency, price.Amount)
}

// CreditBalance is skygate.ESIMStore's CreditBalance: credit (account_id, currency,
// amount, now) adds to the balance, creating it, and returns the new amount; entry
// (the columns ScanLedger reads; booking_id and iccid NULL) appends e to the ledger.
func CreditBalance(ctx context.Context, db *DB, credit, entry string, e *skygate.LedgerEntry, audit *skygate.AuditEvent) error {
	if err := Audited("credit balance", audit); err != nil {
		return err
	}
	if e.Amount.Amount <= 0 {
		return skygate.ValidationError(skygate.FieldError{Field: "amount.amount", Message: "must be positive"})
	}
	if e.Kind != skygate.LedgerCredit && e.Kind != skygate.LedgerRefund {
		return skygate.ValidationError(skygate.FieldError{Field: "kind", Message: "must be credit or refund"})
	}
	e.CreatedAt = UTC(e.CreatedAt)
	err := db.InTx(ctx, func(tx *Tx) error {
		err := tx.QueryRowContext(ctx, credit, e.AccountID, e.Amount.Currency, e.Amount.Amount,
			db.Time(e.CreatedAt)).Scan(&e.BalanceAfter)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, entry, e.ID, e.AccountID, string(e.Kind), e.Amount.Amount,
			e.Amount.Currency, e.BalanceAfter, e.Reference, e.Description, db.Time(e.CreatedAt), nil, nil)
		if err != nil {
			return err
		}
		return db.Audit(ctx, tx, audit)
	})
	return db.Interpret(Outcome{
		Op:       "credit balance",
		Conflict: "a ledger entry with this id already exists",
		NotFound: AccountNotFound,
	}, err)
}

// ScanBalance reads currency, amount, reserved.
func ScanBalance(row Scanner) (b skygate.Balance, err error) {
	return b, row.Scan(&b.Currency, &b.Amount, &b.Reserved)
}
