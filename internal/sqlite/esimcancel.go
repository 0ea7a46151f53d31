package sqlite

import (
	"context"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

var (
	_ skygate.ESIMCancelStore  = (*Store)(nil)
	_ skygate.ESIMHistoryStore = (*Store)(nil)
)

const (
	// selectESIMPayments reads what was paid for an eSIM: its order's unit price of
	// the order's total and each top-up's price, by currency so that a cancel locks
	// balance rows in one order.
	selectESIMPayments = `SELECT 'order', o.id, o.unit_amount, o.total_amount, o.currency, o.created_at
			FROM esims e JOIN esim_orders o ON o.account_id = e.account_id AND o.id = e.order_id
			WHERE e.account_id = ?1 AND e.iccid = ?2
		UNION ALL
		SELECT 'topup', t.id, t.price_amount, t.price_amount, t.price_currency, t.created_at
			FROM esim_topups t WHERE t.account_id = ?1 AND t.iccid = ?2
		ORDER BY 5, 6, 2`
	// lockBalance locks a balance row until the commit, creating it at zero: a refund
	// of the same reference (a cancel, CreditBalance) waits for it, even one that
	// creates the row.
	lockBalance = `INSERT INTO esim_balances (account_id, currency, amount, updated_at)
		VALUES (?1, ?2, 0, ?3)
		ON CONFLICT (account_id, currency) DO UPDATE SET amount = esim_balances.amount`
	// sumRefunds sums the refund lines of a reference in a currency (the partial
	// index esim_ledger_refunds).
	sumRefunds = `SELECT coalesce(sum(amount), 0) FROM esim_ledger
		WHERE account_id = ?1 AND reference = ?2 AND currency = ?3 AND kind = 'refund'`
	selectESIMExists  = `SELECT 1 FROM esims WHERE account_id = ?1 AND iccid = ?2`
	selectESIMHistory = `SELECT at, kind, data FROM esim_history
		WHERE account_id = ?1 AND iccid = ?2 ORDER BY seq LIMIT ?3 OFFSET ?4`
	countESIMHistory = `SELECT count(*) FROM esim_history WHERE account_id = ?1 AND iccid = ?2`
)

// cancelSQL is the SQL of a cancel of an eSIM (sqlstore.CancelSQL).
var cancelSQL = sqlstore.CancelSQL{Change: changeSQL, Paid: selectESIMPayments, Lock: lockBalance, Refunded: sumRefunds,
	Credit: creditBalance, Entry: insertLedger}

// historySQL is the SQL of an eSIM's history (sqlstore.HistorySQL).
var historySQL = sqlstore.HistorySQL{ESIM: selectESIMExists, List: selectESIMHistory, Count: countESIMHistory}

// CancelESIM implements skygate.ESIMCancelStore. SQLite has one writer, so the
// cancel's transaction holds the whole database from its first write.
func (s *Store) CancelESIM(ctx context.Context, accountID, iccid string, now time.Time, apply skygate.ESIMApply) (*skygate.ESIM, error) {
	return sqlstore.CancelESIM(ctx, s.db, cancelSQL, accountID, iccid, now, apply)
}

// ESIMHistory implements skygate.ESIMHistoryStore. A Limit of zero or less returns
// every entry after Offset.
func (s *Store) ESIMHistory(ctx context.Context, accountID, iccid string, p skygate.Page) ([]*skygate.ESIMHistoryEntry, int, error) {
	return sqlstore.ESIMHistory(ctx, s.db, historySQL, accountID, iccid, p)
}
