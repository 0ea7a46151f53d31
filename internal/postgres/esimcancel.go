package postgres

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
	// selectESIMPayments reads what was paid for an eSIM: its order's unit price and
	// each top-up's price, by currency so that a cancel locks balance rows in one order.
	selectESIMPayments = `SELECT 'order', o.id, o.unit_amount, o.currency, o.created_at
			FROM esims e JOIN esim_orders o ON o.account_id = e.account_id AND o.id = e.order_id
			WHERE e.account_id = $1 AND e.iccid = $2
		UNION ALL
		SELECT 'topup', t.id, t.price_amount, t.price_currency, t.created_at
			FROM esim_topups t WHERE t.account_id = $1 AND t.iccid = $2
		ORDER BY 4, 5, 2`
	selectESIMExists  = `SELECT 1 FROM esims WHERE account_id = $1 AND iccid = $2`
	selectESIMHistory = `SELECT at, kind, data FROM esim_history
		WHERE account_id = $1 AND iccid = $2 ORDER BY seq LIMIT $3 OFFSET $4`
	countESIMHistory = `SELECT count(*) FROM esim_history WHERE account_id = $1 AND iccid = $2`
)

// cancelSQL is the SQL of a cancel of an eSIM (sqlstore.CancelSQL).
var cancelSQL = sqlstore.CancelSQL{Change: changeSQL, Paid: selectESIMPayments, Credit: creditBalance, Entry: insertLedger}

// historySQL is the SQL of an eSIM's history (sqlstore.HistorySQL).
var historySQL = sqlstore.HistorySQL{ESIM: selectESIMExists, List: selectESIMHistory, Count: countESIMHistory}

// CancelESIM implements skygate.ESIMCancelStore. The eSIM's row is locked (FOR
// UPDATE) before the balance rows that the refund updates.
func (s *Store) CancelESIM(ctx context.Context, accountID, iccid string, now time.Time, apply skygate.ESIMApply) (*skygate.ESIM, error) {
	return sqlstore.CancelESIM(ctx, s.db, cancelSQL, accountID, iccid, now, apply)
}

// ESIMHistory implements skygate.ESIMHistoryStore. A Limit of zero or less returns
// every entry after Offset.
func (s *Store) ESIMHistory(ctx context.Context, accountID, iccid string, p skygate.Page) ([]*skygate.ESIMHistoryEntry, int, error) {
	return sqlstore.ESIMHistory(ctx, s.db, historySQL, accountID, iccid, p)
}
