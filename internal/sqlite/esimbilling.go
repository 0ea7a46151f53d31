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
const ledgerColumns = `id, account_id, kind, amount, currency, balance_after, reference, description, created_at`

const (
	// debitBalance is a conditional update: the balance is checked and lowered in one
	// statement, so no charge can take it below zero. The amount is passed twice.
	debitBalance = `UPDATE esim_balances SET amount = amount - ?, updated_at = ?
		WHERE account_id = ? AND currency = ? AND amount >= ?
		RETURNING amount`
	creditBalance = `INSERT INTO esim_balances (account_id, currency, amount, updated_at)
		VALUES (?, ?, ?, ?)
		ON CONFLICT (account_id, currency) DO UPDATE SET amount = esim_balances.amount + excluded.amount,
			updated_at = excluded.updated_at
		RETURNING amount`
	selectBalances = `SELECT currency, amount FROM esim_balances WHERE account_id = ? ORDER BY currency`
	insertLedger   = `INSERT INTO esim_ledger (` + ledgerColumns + `)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`
	listLedger = `SELECT ` + ledgerColumns + ` FROM esim_ledger
		WHERE account_id = ? ORDER BY seq DESC LIMIT ? OFFSET ?`
	countLedger = `SELECT count(*) FROM esim_ledger WHERE account_id = ?`
)

// charge debits price from the account's balance inside tx and appends the charge to
// the ledger, or returns CodeInsufficientFunds. A zero price charges nothing and
// writes no entry.
func charge(ctx context.Context, tx *sql.Tx, accountID string, price skygate.Money, reference, description string, now time.Time) error {
	if price.Amount == 0 {
		return nil
	}
	at := micros(now)
	var balanceAfter int64
	err := tx.QueryRowContext(ctx, debitBalance, price.Amount, at, accountID, price.Currency, price.Amount).Scan(&balanceAfter)
	if errors.Is(err, sql.ErrNoRows) {
		return insufficientFunds(price)
	}
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, insertLedger, skygate.NewID(), accountID, string(skygate.LedgerCharge),
		-price.Amount, price.Currency, balanceAfter, reference, description, at)
	return err
}

// insufficientFunds is the CodeInsufficientFunds error of a balance that does not
// cover price.
func insufficientFunds(price skygate.Money) error {
	return skygate.Errorf(skygate.CodeInsufficientFunds,
		"the %s balance does not cover %d minor units", price.Currency, price.Amount)
}

// CreditBalance implements skygate.ESIMStore.
func (s *Store) CreditBalance(ctx context.Context, e *skygate.LedgerEntry, audit *skygate.AuditEvent) error {
	if e.Amount.Amount <= 0 {
		return skygate.ValidationError(skygate.FieldError{Field: "amount.amount", Message: "must be positive"})
	}
	if e.Kind != skygate.LedgerCredit && e.Kind != skygate.LedgerRefund {
		return skygate.ValidationError(skygate.FieldError{Field: "kind", Message: "must be credit or refund"})
	}
	e.CreatedAt = sqlstore.UTC(e.CreatedAt)
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, creditBalance, e.AccountID, e.Amount.Currency, e.Amount.Amount,
			micros(e.CreatedAt)).Scan(&e.BalanceAfter)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, insertLedger, e.ID, e.AccountID, string(e.Kind), e.Amount.Amount,
			e.Amount.Currency, e.BalanceAfter, e.Reference, e.Description, micros(e.CreatedAt))
		if err != nil {
			return err
		}
		return appendAudit(ctx, tx, audit)
	})
	return interpret(sqlstore.Outcome{
		Op:       "credit balance",
		Conflict: "a ledger entry with this id already exists",
		NotFound: accountNotFound,
	}, err)
}

// ESIMBalances implements skygate.ESIMStore.
func (s *Store) ESIMBalances(ctx context.Context, accountID string) ([]skygate.Money, error) {
	out, err := sqlstore.QueryAll(ctx, s.read, func(row sqlstore.Scanner) (m skygate.Money, err error) {
		return m, row.Scan(&m.Currency, &m.Amount)
	}, selectBalances, accountID)
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "get balances"}, err)
	}
	return out, nil
}

// ListLedger implements skygate.ESIMStore. A Limit of zero or less returns every entry
// after Offset.
func (s *Store) ListLedger(ctx context.Context, accountID string, p skygate.Page) ([]*skygate.LedgerEntry, int, error) {
	return listPage(ctx, s, "list ledger", sqlstore.ScanLedger, listLedger, countLedger, p, accountID)
}
