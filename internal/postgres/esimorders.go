package postgres

import (
	"context"
	"errors"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

// esimOrderColumns are the columns sqlstore.ScanESIMOrder reads.
const esimOrderColumns = `id, account_id, client_id, package_id, quantity, partner_reference, status,
	unit_amount, total_amount, currency, created_at, livemode`

const (
	insertESIMOrder = `INSERT INTO esim_orders (` + esimOrderColumns + `)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`
	// insertOrderESIMs inserts the new eSIMs of an order, one an ICCID of $1; the rest
	// of their columns, the order's livemode ($11) and refund window's end ($12) among
	// them, are the same for all.
	insertOrderESIMs = `INSERT INTO esims (iccid, account_id, order_id, package_id, status,
			total_mb, used_mb, validity_days, notified_thresholds, installed_at, activated_at,
			expires_at, created_at, updated_at, livemode, refund_until)
		SELECT iccid, $2, $3, $4, $5, $6, $7, $8, $9, NULL, NULL, NULL, $10, $10, $11, $12
		FROM unnest($1::text[]) AS iccid`
	// insertOrderHistory writes the "ordered" entry of each new eSIM of an order.
	insertOrderHistory = `INSERT INTO esim_history (account_id, iccid, at, kind, data)
		SELECT $2, iccid, $3, $4, $5 FROM unnest($1::text[]) AS iccid ORDER BY iccid`
	selectESIMOrder = `SELECT ` + esimOrderColumns + ` FROM esim_orders
		WHERE account_id = $1 AND id = $2`
	listESIMOrders = `SELECT ` + esimOrderColumns + ` FROM esim_orders
		WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`
	countESIMOrders = `SELECT count(*) FROM esim_orders WHERE account_id = $1`
	// selectOrdersESIMs reads the eSIMs of the account's orders in $2.
	selectOrdersESIMs = `SELECT ` + esimColumns + ` FROM ` + esimFrom + `
		WHERE e.account_id = $1 AND e.order_id = ANY($2) ORDER BY e.order_id, e.iccid`
)

// orderSQL is the SQL of CreateESIMOrder (sqlstore.OrderSQL).
var orderSQL = sqlstore.OrderSQL{Key: keySQL, Priced: selectPricedPackage, Insert: insertESIMOrder, ESIMs: insertOrderESIMs,
	History: insertOrderHistory}

// CreateESIMOrder implements skygate.ESIMStore. Orders take their profiles side by side
// (see allocateProfiles) before the debit, and an order whose debit then fails gives
// its profiles back, so the pool hands out the oldest profiles first only among the
// orders that commit. The balance is read beforehand, without a lock, so that an
// order it cannot cover fails before it takes profiles that others might wait for.
// An order that finds the pool short runs again, in the allocation line.
func (s *Store) CreateESIMOrder(ctx context.Context, rec *skygate.IdempotencyRecord, o *skygate.ESIMOrder, apply skygate.ESIMOrderApply) (*skygate.IdempotencyRecord, error) {
	replay, err := sqlstore.CreateESIMOrder(ctx, s.db, orderSQL, allocateSkipping, s.charge, rec, o, apply)
	if errors.Is(err, errAllocateInLine) {
		replay, err = sqlstore.CreateESIMOrder(ctx, s.db, orderSQL, allocateInLine, s.charge, rec, o, apply)
	}
	return replay, err
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
