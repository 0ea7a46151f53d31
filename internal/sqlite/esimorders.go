package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

// esimOrderNotFound is the public message of a missing order, including one of
// another account.
const esimOrderNotFound = "eSIM order not found"

// esimOrderColumns are the columns sqlstore.ScanESIMOrder reads.
const esimOrderColumns = `id, account_id, client_id, package_id, quantity, partner_reference, status,
	unit_amount, total_amount, currency, created_at`

const (
	insertESIMOrder = `INSERT INTO esim_orders (` + esimOrderColumns + `)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	insertESIM = `INSERT INTO esims (iccid, account_id, order_id, package_id, status,
			total_mb, used_mb, validity_days, notified_thresholds, installed_at, activated_at,
			expires_at, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, '[]', NULL, NULL, NULL, ?, ?)`
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

// CreateESIMOrder implements skygate.ESIMStore: the idempotency key, the order, its
// profiles and eSIMs, its events and the debit in one transaction. The debit is the
// last statement; the balance read before the allocation fails an order it cannot
// cover before it takes profiles, and the debit's condition keeps the balance from
// going below zero.
func (s *Store) CreateESIMOrder(ctx context.Context, rec *skygate.IdempotencyRecord, o *skygate.ESIMOrder, apply skygate.ESIMOrderApply) (*skygate.IdempotencyRecord, error) {
	o.CreatedAt = sqlstore.UTC(o.CreatedAt)
	o.Status = skygate.ESIMOrderCompleted
	recArgs, err := s.idempotencyArgs(rec)
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "create eSIM order"}, err)
	}
	var replay *skygate.IdempotencyRecord
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		if replay, err = s.claimKey(ctx, tx, rec, recArgs); err != nil || replay != nil {
			return err
		}
		pkg, err := pricedPackage(ctx, tx, o.AccountID, o.PackageID, o.UnitPrice)
		if err != nil {
			return err
		}
		if pkg.balance < o.Total.Amount {
			return insufficientFunds(o.Total)
		}
		_, err = tx.ExecContext(ctx, insertESIMOrder, o.ID, o.AccountID, o.ClientID, o.PackageID,
			o.Quantity, o.PartnerReference, string(o.Status), o.UnitPrice.Amount, o.Total.Amount,
			o.Total.Currency, micros(o.CreatedAt))
		if err != nil {
			return err
		}
		profiles, err := allocateProfiles(ctx, tx, o.AccountID, o.ID, o.Quantity)
		if err != nil {
			return err
		}
		slices.SortFunc(profiles, func(a, b allocatedProfile) int { return strings.Compare(a.iccid, b.iccid) })
		usage := skygate.NewESIMUsage(pkg.dataMB, 0)
		o.ESIMs = make([]*skygate.ESIM, len(profiles))
		for i, p := range profiles {
			o.ESIMs[i] = &skygate.ESIM{
				ICCID: p.iccid, AccountID: o.AccountID, OrderID: o.ID, PackageID: o.PackageID,
				Status: skygate.ESIMAssigned, Usage: skygate.NewESIMUsage(pkg.dataMB, 0),
				ValidityDays: pkg.validityDays, NotifiedThresholds: []int{},
				SMDPAddress: p.smdp, MatchingIDSealed: p.sealed, CreatedAt: o.CreatedAt, UpdatedAt: o.CreatedAt,
			}
			_, err = tx.ExecContext(ctx, insertESIM, p.iccid, o.AccountID, o.ID, o.PackageID,
				string(skygate.ESIMAssigned), usage.TotalMB, usage.UsedMB, pkg.validityDays,
				micros(o.CreatedAt), micros(o.CreatedAt))
			if err != nil {
				return err
			}
		}
		if apply != nil {
			events, err := apply(o)
			if err != nil {
				return err
			}
			if err := s.insertEvents(ctx, tx, events); err != nil {
				return err
			}
		}
		desc := fmt.Sprintf("eSIM order: %d × %s", o.Quantity, pkg.nameEN)
		return charge(ctx, tx, o.AccountID, o.Total, o.ID, desc, o.CreatedAt)
	})
	if err != nil {
		return nil, interpret(sqlstore.Outcome{
			Op:       "create eSIM order",
			Conflict: "an eSIM order with this id already exists",
			NotFound: accountNotFound,
		}, err)
	}
	return replay, nil
}

// ESIMOrder implements skygate.ESIMStore.
func (s *Store) ESIMOrder(ctx context.Context, accountID, orderID string) (*skygate.ESIMOrder, error) {
	var o *skygate.ESIMOrder
	err := s.inReadTx(ctx, func(tx *sql.Tx) error {
		var err error
		if o, err = sqlstore.ScanESIMOrder(tx.QueryRowContext(ctx, selectESIMOrder, accountID, orderID)); err != nil {
			return err
		}
		return attachESIMs(ctx, tx, accountID, []*skygate.ESIMOrder{o})
	})
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "get eSIM order", NotFound: esimOrderNotFound}, err)
	}
	return o, nil
}

// ListESIMOrders implements skygate.ESIMStore. A Limit of zero or less returns every
// order after Offset.
func (s *Store) ListESIMOrders(ctx context.Context, accountID string, p skygate.Page) ([]*skygate.ESIMOrder, int, error) {
	limit, offset := sqlstore.PageArgs(p)
	var (
		orders []*skygate.ESIMOrder
		total  int
	)
	err := s.inReadTx(ctx, func(tx *sql.Tx) error {
		var err error
		if orders, err = sqlstore.QueryAll(ctx, tx, sqlstore.ScanESIMOrder, listESIMOrders, accountID, limit, offset); err != nil {
			return err
		}
		if err := attachESIMs(ctx, tx, accountID, orders); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, countESIMOrders, accountID).Scan(&total)
	})
	if err != nil {
		return nil, 0, interpret(sqlstore.Outcome{Op: "list eSIM orders"}, err)
	}
	return orders, total, nil
}

// attachESIMs reads the eSIMs of the account's orders inside tx and sets their ESIMs.
func attachESIMs(ctx context.Context, tx *sql.Tx, accountID string, orders []*skygate.ESIMOrder) error {
	if len(orders) == 0 {
		return nil
	}
	byID := make(map[string]*skygate.ESIMOrder, len(orders))
	ids := make([]string, len(orders))
	for i, o := range orders {
		byID[o.ID] = o
		ids[i] = o.ID
	}
	jsonIDs, err := sqlstore.JSONText(ids)
	if err != nil {
		return err
	}
	esims, err := sqlstore.QueryAll(ctx, tx, sqlstore.ScanESIM, selectOrdersESIMs, accountID, jsonIDs)
	if err != nil {
		return err
	}
	for _, e := range esims {
		if o := byID[e.OrderID]; o != nil {
			o.ESIMs = append(o.ESIMs, e)
		}
	}
	return nil
}
