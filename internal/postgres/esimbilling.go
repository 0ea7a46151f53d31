package postgres

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
// currency, NULL for none: the debits return it so that sqlstore.Debited needs no
// round trip of its own while the balance row is locked.
const thresholdOf = `(SELECT t.amount FROM billing_thresholds t
	WHERE t.account_id = esim_balances.account_id AND t.currency = esim_balances.currency)`

const (
	// chargeBalance debits the balance and appends the charge to the ledger in one
	// statement. The debit is a conditional update: the balance is checked and lowered
	// under the row's lock, so concurrent charges can never take it below zero, and the
	// entry is written only when the debit was. The row lock is held until the commit;
	// one round trip less while holding it is one less that the account's next order
	// waits for (the callers debit last for the same reason).
	chargeBalance = `WITH d AS (
			UPDATE esim_balances SET amount = amount - $1, updated_at = $2
			WHERE account_id = $3 AND currency = $4 AND amount >= $1
			RETURNING account_id, currency, amount, updated_at
		)
		INSERT INTO esim_ledger (` + ledgerColumns + `)
		SELECT $5, d.account_id, $6, $7, d.currency, d.amount, $8, $9, d.updated_at, NULL, NULL FROM d
		RETURNING balance_after,
			(SELECT t.amount FROM billing_thresholds t WHERE t.account_id = $3 AND t.currency = $4)`
	creditBalance = `INSERT INTO esim_balances (account_id, currency, amount, updated_at)
		VALUES ($1, $2, $3, $4)
		ON CONFLICT (account_id, currency) DO UPDATE SET amount = esim_balances.amount + excluded.amount,
			updated_at = excluded.updated_at
		RETURNING amount`
	selectBalances = `SELECT currency, amount, reserved FROM esim_balances WHERE account_id = $1 ORDER BY currency`
	insertLedger   = `INSERT INTO esim_ledger (` + ledgerColumns + `)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`
	listLedger = `SELECT ` + ledgerColumns + ` FROM esim_ledger
		WHERE account_id = $1 ORDER BY seq DESC LIMIT $2 OFFSET $3`
	countLedger   = `SELECT count(*) FROM esim_ledger WHERE account_id = $1`
	ledgerBetween = `SELECT seq, ` + ledgerColumns + ` FROM esim_ledger
		WHERE account_id = $1 AND created_at >= $2 AND created_at < $3 AND seq > $4 ORDER BY seq LIMIT $5`
)

// charge is sqlstore.Charge in one statement (chargeBalance).
func (s *Store) charge(ctx context.Context, tx *sqlstore.Tx, accountID string, price skygate.Money, livemode bool, reference, description string, now time.Time) error {
	var (
		balanceAfter int64
		threshold    sql.NullInt64
	)
	err := tx.QueryRowContext(ctx, chargeBalance, price.Amount, sqlstore.UTC(now), accountID, price.Currency,
		skygate.NewID(), string(skygate.LedgerCharge), -price.Amount, reference, description).Scan(&balanceAfter, &threshold)
	if errors.Is(err, sql.ErrNoRows) {
		return sqlstore.InsufficientFunds(price)
	}
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
	return sqlstore.LedgerBetween(ctx, s.db, ledgerBetween, after, accountID, sqlstore.UTC(from), sqlstore.UTC(to), after, limit)
}
