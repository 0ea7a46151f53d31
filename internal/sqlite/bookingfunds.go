package sqlite

import (
	"context"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

// ledgerSQL are the statements of a booking's money (sqlstore.LedgerSQL). Reserve is
// a conditional update like debitBalance, so no reservation takes the available
// amount below zero; Move needs no condition, as no booking line lowers the available
// amount below what it was before the transition (a charge follows its release).
var ledgerSQL = sqlstore.LedgerSQL{
	Reserve: `UPDATE esim_balances SET amount = amount - ?1, reserved = reserved + ?1, updated_at = ?2
		WHERE account_id = ?3 AND currency = ?4 AND amount >= ?1
		RETURNING amount, ` + thresholdOf,
	Move: `UPDATE esim_balances SET amount = amount + ?1, reserved = reserved + ?2, updated_at = ?3
		WHERE account_id = ?4 AND currency = ?5
		RETURNING amount`,
	Entry: insertLedger,
}

// billingSQL are the statements of the billing settings (sqlstore.BillingSQL).
var billingSQL = sqlstore.BillingSQL{
	Clear:  `DELETE FROM billing_thresholds WHERE account_id = ?`,
	Insert: `INSERT INTO billing_thresholds (account_id, currency, amount, updated_at) VALUES (?, ?, ?, ?)`,
	Select: `SELECT currency, amount FROM billing_thresholds WHERE account_id = ? ORDER BY currency`,
	// The transaction is the database's one writer (BEGIN IMMEDIATE), so no lock.
	Account: `SELECT 1 FROM accounts WHERE id = ?`,
}

// reserveFunds reserves b.Price on the account's balance (sqlstore.ReserveFunds).
func (s *Store) reserveFunds(ctx context.Context, tx *sqlstore.Tx, b *skygate.Booking) error {
	return sqlstore.ReserveFunds(ctx, s.db, tx, ledgerSQL, b)
}

// moveFunds moves the money of a transition (sqlstore.MoveFunds).
func (s *Store) moveFunds(ctx context.Context, tx *sqlstore.Tx, before, after *skygate.Booking) error {
	return sqlstore.MoveFunds(ctx, s.db, tx, ledgerSQL, before, after)
}

// BillingSettings implements skygate.BillingStore.
func (s *Store) BillingSettings(ctx context.Context, accountID string) (*skygate.BillingSettings, error) {
	return sqlstore.BillingSettings(ctx, s.db, billingSQL, accountID)
}

// SetBillingSettings implements skygate.BillingStore.
func (s *Store) SetBillingSettings(ctx context.Context, accountID string, set *skygate.BillingSettings, now time.Time) (*skygate.BillingSettings, error) {
	return sqlstore.SetBillingSettings(ctx, s.db, billingSQL, accountID, set, now)
}
