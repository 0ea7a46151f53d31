package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/skygate/skygate"
)

const ledgerColumns = `id, account_id, kind, amount, currency, balance_after, reference, description, created_at`

var (
	// The debit is a conditional update: the balance is checked and lowered in one
	// statement, under the row's lock, so concurrent charges can never take it below
	// zero and need no read beforehand.
	qDebitBalance = newStmt(`UPDATE esim_balances SET amount = amount - ?, updated_at = ?
		WHERE account_id = ? AND currency = ? AND amount >= ? RETURNING amount`)
	// qChargeAtOnce is the debit and its ledger entry as one statement, on an engine
	// with writable CTEs: the row lock the debit takes is held until the commit, and
	// one round trip less while holding it is one less that the account's next order
	// waits for (the callers debit last for the same reason). The entry is written
	// only when the debit was. Arguments: the debit's
	// (qDebitBalance's), then the entry's id, kind, amount, reference and description.
	// PostgreSQL types the arguments of an INSERT … SELECT by the columns they fill.
	qChargeAtOnce = newStmt(`WITH d AS (UPDATE esim_balances SET amount = amount - ?, updated_at = ?
			WHERE account_id = ? AND currency = ? AND amount >= ? RETURNING account_id, currency, amount, updated_at)
		INSERT INTO esim_ledger (` + ledgerColumns + `)
		SELECT ?, d.account_id, ?, ?, d.currency, d.amount, ?, ?, d.updated_at FROM d
		RETURNING balance_after`)
	qCreditBalance = newStmt(`INSERT INTO esim_balances (account_id, currency, amount, updated_at)
		VALUES (?, ?, ?, ?)
		ON CONFLICT (account_id, currency) DO UPDATE SET amount = esim_balances.amount + excluded.amount,
			updated_at = excluded.updated_at
		RETURNING amount`)
	qBalances = newStmt(`SELECT currency, amount FROM esim_balances
		WHERE account_id = ? ORDER BY currency`)
	qInsertLedger = newStmt(`INSERT INTO esim_ledger (` + ledgerColumns + `)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	qListLedger = newStmt(`SELECT ` + ledgerColumns + ` FROM esim_ledger
		WHERE account_id = ? ORDER BY seq DESC ` + limitArg + ` OFFSET ?`)
	qCountLedger = newStmt(`SELECT COUNT(*) FROM esim_ledger WHERE account_id = ?`)
)

// scanLedger reads one row of ledgerColumns.
func scanLedger(row scanner) (*skygate.LedgerEntry, error) {
	var (
		e    skygate.LedgerEntry
		kind string
	)
	err := row.Scan(&e.ID, &e.AccountID, &kind, &e.Amount.Amount, &e.Amount.Currency, &e.BalanceAfter,
		&e.Reference, &e.Description, timeCol{&e.CreatedAt})
	if err != nil {
		return nil, err
	}
	e.Kind = skygate.LedgerKind(kind)
	return &e, nil
}

// charge debits price from the account's balance inside tx and appends the charge to
// the ledger, or returns CodeInsufficientFunds. A zero price charges nothing and
// writes no entry.
func (s *Store) charge(ctx context.Context, tx *sql.Tx, accountID string, price skygate.Money, reference, description string, now time.Time) error {
	if price.Amount == 0 {
		return nil
	}
	e := &skygate.LedgerEntry{
		ID: skygate.NewID(), AccountID: accountID, Kind: skygate.LedgerCharge,
		Amount:    skygate.Money{Amount: -price.Amount, Currency: price.Currency},
		Reference: reference, Description: description, CreatedAt: utc(now),
	}
	debit := []any{price.Amount, s.time(e.CreatedAt), accountID, price.Currency, price.Amount}
	if s.d.WritableCTE {
		args := append(debit, e.ID, string(e.Kind), e.Amount.Amount, e.Reference, e.Description)
		return debited(tx.QueryRowContext(ctx, s.q(qChargeAtOnce), args...).Scan(&e.BalanceAfter), price)
	}
	if err := debited(tx.QueryRowContext(ctx, s.q(qDebitBalance), debit...).Scan(&e.BalanceAfter), price); err != nil {
		return err
	}
	return s.insertLedger(ctx, tx, e)
}

// debited is the error of a debit of price that returned err: no row is a balance
// that does not cover it (CodeInsufficientFunds).
func debited(err error, price skygate.Money) error {
	if errors.Is(err, sql.ErrNoRows) {
		return insufficientFunds(price)
	}
	return err
}

// insufficientFunds is the CodeInsufficientFunds error of a balance that does not
// cover price.
func insufficientFunds(price skygate.Money) error {
	return skygate.Errorf(skygate.CodeInsufficientFunds,
		"the %s balance does not cover %d minor units", price.Currency, price.Amount)
}

// insertLedger appends e to the ledger inside tx.
func (s *Store) insertLedger(ctx context.Context, tx *sql.Tx, e *skygate.LedgerEntry) error {
	e.CreatedAt = utc(e.CreatedAt)
	_, err := tx.ExecContext(ctx, s.q(qInsertLedger), e.ID, e.AccountID, string(e.Kind), e.Amount.Amount,
		e.Amount.Currency, e.BalanceAfter, e.Reference, e.Description, s.time(e.CreatedAt))
	return err
}

// CreditBalance implements skygate.ESIMStore.
func (s *Store) CreditBalance(ctx context.Context, e *skygate.LedgerEntry, audit *skygate.AuditEvent) error {
	if e.Amount.Amount <= 0 {
		return skygate.ValidationError(skygate.FieldError{Field: "amount.amount", Message: "must be positive"})
	}
	if e.Kind != skygate.LedgerCredit && e.Kind != skygate.LedgerRefund {
		return skygate.ValidationError(skygate.FieldError{Field: "kind", Message: "must be credit or refund"})
	}
	e.CreatedAt = utc(e.CreatedAt)
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, s.q(qCreditBalance), e.AccountID, e.Amount.Currency, e.Amount.Amount,
			s.time(e.CreatedAt)).Scan(&e.BalanceAfter)
		if err != nil {
			return err
		}
		if err := s.insertLedger(ctx, tx, e); err != nil {
			return err
		}
		return s.appendAudit(ctx, tx, audit)
	})
	return s.interpret(outcome{
		op:       "credit balance",
		conflict: "a ledger entry with this id already exists",
		notFound: accountNotFound,
	}, err)
}

// ESIMBalances implements skygate.ESIMStore.
func (s *Store) ESIMBalances(ctx context.Context, accountID string) ([]skygate.Money, error) {
	rows, err := s.read.QueryContext(ctx, s.q(qBalances), accountID)
	if err != nil {
		return nil, s.interpret(outcome{op: "get balances"}, err)
	}
	defer rows.Close()
	out := []skygate.Money{}
	for rows.Next() {
		var m skygate.Money
		if err := rows.Scan(&m.Currency, &m.Amount); err != nil {
			return nil, s.interpret(outcome{op: "get balances"}, err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, s.interpret(outcome{op: "get balances"}, err)
	}
	return out, nil
}

// ListLedger implements skygate.ESIMStore. A Limit of zero or less returns every entry
// after Offset.
func (s *Store) ListLedger(ctx context.Context, accountID string, p skygate.Page) ([]*skygate.LedgerEntry, int, error) {
	return listPage(ctx, s, "list ledger", scanLedger, s.q(qListLedger), s.q(qCountLedger), p, accountID)
}
