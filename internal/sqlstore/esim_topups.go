package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/skygate/skygate"
)

const topUpColumns = `id, account_id, client_id, iccid, package_id, data_mb, validity_days, price_amount,
	price_currency, created_at`

var (
	qInsertTopUp = newStmt(`INSERT INTO esim_topups (` + topUpColumns + `)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	qTopUp = newStmt(`SELECT ` + topUpColumns + ` FROM esim_topups WHERE account_id = ? AND id = ?`)
)

// topUpNotFound is the public message of a missing top-up.
const topUpNotFound = "top-up not found"

// scanTopUp reads one row of topUpColumns.
func scanTopUp(row scanner) (*skygate.TopUp, error) {
	var (
		t    skygate.TopUp
		data sql.NullInt64
	)
	err := row.Scan(&t.ID, &t.AccountID, &t.ClientID, &t.ICCID, &t.PackageID, &data, &t.ValidityDays,
		&t.Price.Amount, &t.Price.Currency, timeCol{&t.CreatedAt})
	if err != nil {
		return nil, err
	}
	t.DataMB = nullInt(data)
	return &t, nil
}

// TopUpESIM implements skygate.ESIMStore. The eSIM row is locked before the balance,
// the order of locks every top-up takes; orders never lock eSIM rows, so the two cannot
// deadlock. As in CreateESIMOrder, the debit is the last statement, so that the
// balance row is locked only from there to the commit, and the balance is read
// beforehand so that a top-up it cannot cover fails before apply.
func (s *Store) TopUpESIM(ctx context.Context, rec *skygate.IdempotencyRecord, t *skygate.TopUp, apply skygate.ESIMApply) (*skygate.IdempotencyRecord, error) {
	t.CreatedAt = utc(t.CreatedAt)
	var replay *skygate.IdempotencyRecord
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		if replay, err = s.claimIdempotencyKey(ctx, tx, rec); err != nil || replay != nil {
			return err
		}
		before, err := s.lockESIM(ctx, tx, t.AccountID, t.ICCID)
		if err != nil {
			return err
		}
		pkg, err := s.pricedPackage(ctx, tx, t.AccountID, t.PackageID, t.Price)
		if err != nil {
			return err
		}
		if pkg.balance < t.Price.Amount {
			return insufficientFunds(t.Price)
		}
		t.DataMB, t.ValidityDays = pkg.dataMB, pkg.validityDays
		_, err = tx.ExecContext(ctx, s.q(qInsertTopUp), t.ID, t.AccountID, t.ClientID, t.ICCID, t.PackageID,
			intArg(t.DataMB), t.ValidityDays, t.Price.Amount, t.Price.Currency, s.time(t.CreatedAt))
		if err != nil {
			return err
		}
		if t.ESIM, err = s.applyESIM(ctx, tx, before, t.CreatedAt, apply); err != nil {
			return err
		}
		desc := fmt.Sprintf("eSIM top-up of %s: %s", t.ICCID, pkg.nameEN)
		return s.charge(ctx, tx, t.AccountID, t.Price, t.ID, desc, t.CreatedAt)
	})
	if err != nil {
		return nil, s.interpret(outcome{
			op:       "top up eSIM",
			conflict: "a top-up with this id already exists",
			notFound: accountNotFound,
		}, err)
	}
	return replay, nil
}

// TopUp implements skygate.ESIMStore.
func (s *Store) TopUp(ctx context.Context, accountID, topUpID string) (*skygate.TopUp, error) {
	var t *skygate.TopUp
	err := s.inReadTx(ctx, func(tx *sql.Tx) error {
		var err error
		if t, err = scanTopUp(tx.QueryRowContext(ctx, s.q(qTopUp), accountID, topUpID)); err != nil {
			return err
		}
		t.ESIM, err = scanESIM(tx.QueryRowContext(ctx, s.q(qESIM), accountID, t.ICCID))
		return err
	})
	if err != nil {
		return nil, s.interpret(outcome{op: "get top-up", notFound: topUpNotFound}, err)
	}
	return t, nil
}
