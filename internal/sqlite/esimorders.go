package sqlite

import (
	"context"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

// esimOrderColumns are the columns sqlstore.ScanESIMOrder reads.
const esimOrderColumns = `id, account_id, client_id, package_id, quantity, partner_reference, status,
	unit_amount, total_amount, currency, created_at, livemode`

const (
	insertESIMOrder = `INSERT INTO esim_orders (` + esimOrderColumns + `)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	// insertOrderESIMs inserts the new eSIMs of an order, one an ICCID of the JSON
	// array ?1; the rest of their columns, the order's livemode (?11) and refund
	// window's end (?12) among them, are the same for all.
	insertOrderESIMs = `INSERT INTO esims (iccid, account_id, order_id, package_id, status,
			total_mb, used_mb, validity_days, notified_thresholds, installed_at, activated_at,
			expires_at, created_at, updated_at, livemode, refund_until)
		SELECT value, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, NULL, NULL, NULL, ?10, ?10, ?11, ?12
		FROM json_each(?1)`
	// insertOrderHistory writes the "ordered" entry of each new eSIM of an order.
	insertOrderHistory = `INSERT INTO esim_history (account_id, iccid, at, kind, data)
		SELECT ?2, value, ?3, ?4, ?5 FROM json_each(?1) ORDER BY value`
	selectESIMOrder = `SELECT ` + esimOrderColumns + ` FROM esim_orders
		WHERE account_id = ? AND id = ?`
	listESIMOrders = `SELECT ` + esimOrderColumns + ` FROM esim_orders
		WHERE account_id = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`
	countESIMOrders = `SELECT count(*) FROM esim_orders WHERE account_id = ?`
	// selectOrdersESIMs reads the eSIMs of the account's orders, given as a JSON array
	// of ids.
	selectOrdersESIMs = `SELECT ` + esimColumns + ` FROM ` + esimFrom + `
		WHERE e.account_id = ? AND e.order_id IN (SELECT value FROM json_each(?))
		ORDER BY e.order_id, e.iccid`
)

// orderSQL is the SQL of CreateESIMOrder (sqlstore.OrderSQL).
var orderSQL = sqlstore.OrderSQL{Key: keySQL, Priced: selectPricedPackage, Insert: insertESIMOrder, ESIMs: insertOrderESIMs,
	History: insertOrderHistory}

// CreateESIMOrder implements skygate.ESIMStore.
func (s *Store) CreateESIMOrder(ctx context.Context, rec *skygate.IdempotencyRecord, o *skygate.ESIMOrder, apply skygate.ESIMOrderApply) (*skygate.IdempotencyRecord, error) {
	return sqlstore.CreateESIMOrder(ctx, s.db, orderSQL, allocateProfiles, s.charge, rec, o, apply)
}

// ESIMOrder implements skygate.ESIMStore.
func (s *Store) ESIMOrder(ctx context.Context, accountID, orderID string) (*skygate.ESIMOrder, error) {
	return sqlstore.ESIMOrder(ctx, s.db, selectESIMOrder, selectOrdersESIMs, accountID, orderID)
}

// ListESIMOrders implements skygate.ESIMStore. A Limit of zero or less returns every
// order after Offset.
func (s *Store) ListESIMOrders(ctx context.Context, accountID string, p skygate.Page) ([]*skygate.ESIMOrder, int, error) {
	return sqlstore.ListESIMOrders(ctx, s.db, listESIMOrders, countESIMOrders, selectOrdersESIMs, accountID, p)
}
