package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

// topUpNotFound is the public message of a missing top-up.
const topUpNotFound = "top-up not found"

const (
	insertTopUp = `INSERT INTO esim_topups (id, account_id, client_id, iccid, package_id, data_mb,
			validity_days, price_amount, price_currency, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	selectTopUp = `SELECT id, account_id, client_id, iccid, package_id, data_mb, validity_days,
			price_amount, price_currency, created_at
		FROM esim_topups WHERE account_id = ? AND id = ?`
)

// TopUpESIM implements skygate.ESIMStore: the idempotency key, the top-up, the eSIM's
// change with its events and the debit in one transaction. As in CreateESIMOrder, the
// debit is the last statement, and the balance is read beforehand so that a top-up it
// cannot cover fails before apply.
func (s *Store) TopUpESIM(ctx context.Context, rec *skygate.IdempotencyRecord, t *skygate.TopUp, apply skygate.ESIMApply) (*skygate.IdempotencyRecord, error) {
	t.CreatedAt = sqlstore.UTC(t.CreatedAt)
	recArgs, err := s.idempotencyArgs(rec)
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "top up eSIM"}, err)
	}
	var replay *skygate.IdempotencyRecord
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		if replay, err = s.claimKey(ctx, tx, rec, recArgs); err != nil || replay != nil {
			return err
		}
		before, err := readAccountESIM(ctx, tx, t.AccountID, t.ICCID)
		if err != nil {
			return err
		}
		pkg, err := pricedPackage(ctx, tx, t.AccountID, t.PackageID, t.Price)
		if err != nil {
			return err
		}
		if pkg.balance < t.Price.Amount {
			return insufficientFunds(t.Price)
		}
		t.DataMB, t.ValidityDays = pkg.dataMB, pkg.validityDays
		_, err = tx.ExecContext(ctx, insertTopUp, t.ID, t.AccountID, t.ClientID, t.ICCID, t.PackageID,
			t.DataMB, t.ValidityDays, t.Price.Amount, t.Price.Currency, micros(t.CreatedAt))
		if err != nil {
			return err
		}
		if t.ESIM, err = s.applyESIM(ctx, tx, before, t.CreatedAt, apply); err != nil {
			return err
		}
		desc := fmt.Sprintf("eSIM top-up of %s: %s", t.ICCID, pkg.nameEN)
		return charge(ctx, tx, t.AccountID, t.Price, t.ID, desc, t.CreatedAt)
	})
	if err != nil {
		return nil, interpret(sqlstore.Outcome{
			Op:       "top up eSIM",
			Conflict: "a top-up with this id already exists",
			NotFound: accountNotFound,
		}, err)
	}
	return replay, nil
}

// TopUp implements skygate.ESIMStore.
func (s *Store) TopUp(ctx context.Context, accountID, topUpID string) (*skygate.TopUp, error) {
	var t *skygate.TopUp
	err := s.inReadTx(ctx, func(tx *sql.Tx) error {
		var err error
		if t, err = sqlstore.ScanTopUp(tx.QueryRowContext(ctx, selectTopUp, accountID, topUpID)); err != nil {
			return err
		}
		t.ESIM, err = sqlstore.ScanESIM(tx.QueryRowContext(ctx, selectESIM, accountID, t.ICCID))
		return err
	})
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "get top-up", NotFound: topUpNotFound}, err)
	}
	return t, nil
}
