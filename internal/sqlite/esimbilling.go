package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

// ledgerColumns are the columns sqlstore.ScanLedger reads.
const ledgerColumns = `id, account_id, kind, amount, currency, balance_after, reference, description, created_at, booking_id, iccid`

// thresholdOf is the account's low-balance threshold in the updated balance row's
// currency, NULL for none, returned by the debits for sqlstore.Debited.
const thresholdOf = `(SELECT t.amount FROM billing_thresholds t
	WHERE t.account_id = esim_balances.account_id AND t.currency = esim_balances.currency)`

const (
	// debitBalance is a conditional update: the balance is checked and lowered in one
	// statement, so no charge can take it below zero. The amount is passed twice.
	debitBalance = `UPDATE esim_balances SET amount = amount - ?, updated_at = ?
		WHERE account_id = ? AND currency = ? AND amount >= ?
		RETURNING amount, ` + thresholdOf
	creditBalance = `INSERT INTO esim_balances (account_id, currency, amount, updated_at)
		VALUES (?, ?, ?, ?)
		ON CONFLICT (account_id, currency) DO UPDATE SET amount = esim_balances.amount + excluded.amount,
			updated_at = excluded.updated_at
		RETURNING amount`
	selectBalances = `SELECT currency, amount, reserved FROM esim_balances WHERE account_id = ? ORDER BY currency`
	insertLedger   = `INSERT INTO esim_ledger (` + ledgerColumns + `)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	listLedger = `SELECT ` + ledgerColumns + ` FROM esim_ledger
		WHERE account_id = ? ORDER BY seq DESC LIMIT ? OFFSET ?`
	countLedger   = `SELECT count(*) FROM esim_ledger WHERE account_id = ?`
	ledgerBetween = `SELECT seq, ` + ledgerColumns + ` FROM esim_ledger
		WHERE account_id = ? AND created_at >= ? AND created_at < ? AND seq > ? ORDER BY seq LIMIT ?`
)

// charge is sqlstore.Charge: the debit, then the ledger's entry.
func (s *Store) charge(ctx context.Context, tx *sqlstore.Tx, accountID string, price skygate.Money, livemode bool, reference, description string, now time.Time) error {
	at := now.UnixMicro()
	var (
		balanceAfter int64
		threshold    sql.NullInt64
	)
	err := tx.QueryRowContext(ctx, debitBalance, price.Amount, at, accountID, price.Currency, price.Amount).Scan(&balanceAfter, &threshold)
	if errors.Is(err, sql.ErrNoRows) {
		return sqlstore.InsufficientFunds(price)
	}
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, insertLedger, skygate.NewID(), accountID, string(skygate.LedgerCharge),
		-price.Amount, price.Currency, balanceAfter, reference, description, at, nil, nil)
	if err != nil {
		return err
	}
	return sqlstore.Debited(ctx, s.db, tx, accountID, price, balanceAfter, threshold, livemode, now)
}

// CreditBalance implements skygate.ESIMStore.
func (s *Store) CreditBalance(ctx context.Context, e *skygate.LedgerEntry, audit *skygate.AuditEvent) error {
	return sqlstore.CreditBalance(ctx, s.db, creditBalance, insertLedger, e, audit)
}

// ESIMBalances implements skygate.ESIMStore.
func (s *Store) ESIMBalances(ctx context.Context, accountID string) ([]skygate.Balance, error) {
	return sqlstore.All(ctx, s.db, "get balances", sqlstore.ScanBalance, selectBalances, accountID)
}

// ListLedger implements skygate.ESIMStore. A Limit of zero or less returns every entry
// after Offset.
func (s *Store) ListLedger(ctx context.Context, accountID string, p skygate.Page) ([]*skygate.LedgerEntry, int, error) {
	return sqlstore.ListPage(ctx, s.db, "list ledger", sqlstore.ScanLedger, listLedger, countLedger, p, accountID)
}

// LedgerBetween implements skygate.BillingStore.
func (s *Store) LedgerBetween(ctx context.Context, accountID string, from, to time.Time, after int64, limit int) ([]*skygate.LedgerEntry, int64, error) {
	return sqlstore.LedgerBetween(ctx, s.db, ledgerBetween, after, accountID, s.db.Time(sqlstore.UTC(from)),
		s.db.Time(sqlstore.UTC(to)), after, limit)
}
