package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/skygate/skygate"
)

const esimOrderColumns = `id, account_id, client_id, package_id, quantity, partner_reference, status,
	unit_amount, total_amount, currency, created_at`

var (
	qInsertESIMOrder = newStmt(`INSERT INTO esim_orders (` + esimOrderColumns + `)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	qESIMOrder = newStmt(`SELECT ` + esimOrderColumns + ` FROM esim_orders
		WHERE account_id = ? AND id = ?`)
	qListESIMOrders = newStmt(`SELECT ` + esimOrderColumns + ` FROM esim_orders
		WHERE account_id = ? ORDER BY created_at DESC, id DESC ` + limitArg + ` OFFSET ?`)
	qCountESIMOrders = newStmt(`SELECT COUNT(*) FROM esim_orders WHERE account_id = ?`)
	// The eSIMs of one order, and of the orders on a page of qListESIMOrders (same
	// arguments). The page's account reaches the eSIMs through the join, so that the
	// planner walks the page's orders and not every eSIM of the account.
	qOrderESIMs = newStmt(`SELECT ` + esimColumns + ` FROM ` + esimFrom + `
		WHERE e.account_id = ? AND e.order_id = ? ORDER BY e.order_id, e.iccid`)
	qPageESIMs = newStmt(`SELECT ` + esimColumns + ` FROM ` + esimFrom + `
		JOIN (SELECT id, account_id FROM esim_orders WHERE account_id = ?
			ORDER BY created_at DESC, id DESC ` + limitArg + ` OFFSET ?) o
			ON o.id = e.order_id AND o.account_id = e.account_id
		ORDER BY e.order_id, e.iccid`)
)

// esimOrderNotFound is the public message of a missing order, including one of
// another account.
const esimOrderNotFound = "eSIM order not found"

// scanESIMOrder reads one row of esimOrderColumns.
func scanESIMOrder(row scanner) (*skygate.ESIMOrder, error) {
	var (
		o      skygate.ESIMOrder
		status string
	)
	err := row.Scan(&o.ID, &o.AccountID, &o.ClientID, &o.PackageID, &o.Quantity, &o.PartnerReference, &status,
		&o.UnitPrice.Amount, &o.Total.Amount, &o.Total.Currency, timeCol{&o.CreatedAt})
	if err != nil {
		return nil, err
	}
	o.Status = skygate.ESIMOrderStatus(status)
	o.UnitPrice.Currency = o.Total.Currency
	o.ESIMs = []*skygate.ESIM{}
	return &o, nil
}

// CreateESIMOrder implements skygate.ESIMStore. The debit is the order's last
// statement: the account's balance row, which every paid order of the account in that
// currency updates, is then locked only from the debit to the commit, and orders take
// their profiles side by side before it (see allocateProfiles). An order whose debit
// then fails gives its profiles back, so the pool hands out the oldest profiles first
// only among the orders that commit. The balance is read beforehand, without a lock, so
// that an order it cannot cover fails before it takes profiles that others might wait
// for; the debit's condition is what keeps the balance from going below zero.
func (s *Store) CreateESIMOrder(ctx context.Context, rec *skygate.IdempotencyRecord, o *skygate.ESIMOrder, apply skygate.ESIMOrderApply) (*skygate.IdempotencyRecord, error) {
	o.CreatedAt = utc(o.CreatedAt)
	o.Status = skygate.ESIMOrderCompleted
	replay, err := s.createESIMOrder(ctx, rec, o, apply, false)
	if errors.Is(err, errAllocateInLine) {
		replay, err = s.createESIMOrder(ctx, rec, o, apply, true)
	}
	if err != nil {
		return nil, s.interpret(outcome{
			op:       "create eSIM order",
			conflict: "an eSIM order with this id already exists",
			notFound: accountNotFound,
		}, err)
	}
	return replay, nil
}

// createESIMOrder is one attempt of CreateESIMOrder, its allocation inLine or not.
func (s *Store) createESIMOrder(ctx context.Context, rec *skygate.IdempotencyRecord, o *skygate.ESIMOrder, apply skygate.ESIMOrderApply, inLine bool) (*skygate.IdempotencyRecord, error) {
	var replay *skygate.IdempotencyRecord
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		if replay, err = s.claimIdempotencyKey(ctx, tx, rec); err != nil || replay != nil {
			return err
		}
		pkg, err := s.pricedPackage(ctx, tx, o.AccountID, o.PackageID, o.UnitPrice)
		if err != nil {
			return err
		}
		if pkg.balance < o.Total.Amount {
			return insufficientFunds(o.Total)
		}
		_, err = tx.ExecContext(ctx, s.q(qInsertESIMOrder), o.ID, o.AccountID, o.ClientID, o.PackageID,
			o.Quantity, o.PartnerReference, string(o.Status), o.UnitPrice.Amount, o.Total.Amount,
			o.Total.Currency, s.time(o.CreatedAt))
		if err != nil {
			return err
		}
		profiles, err := s.allocateProfiles(ctx, tx, o.AccountID, o.ID, o.Quantity, inLine)
		if err != nil {
			return err
		}
		slices.SortFunc(profiles, func(a, b allocatedProfile) int { return strings.Compare(a.iccid, b.iccid) })
		o.ESIMs = make([]*skygate.ESIM, len(profiles))
		for i, p := range profiles {
			o.ESIMs[i] = &skygate.ESIM{
				ICCID: p.iccid, AccountID: o.AccountID, OrderID: o.ID, PackageID: o.PackageID,
				Status: skygate.ESIMAssigned, Usage: skygate.NewESIMUsage(pkg.dataMB, 0),
				ValidityDays: pkg.validityDays, NotifiedThresholds: []int{},
				SMDPAddress: p.smdp, MatchingIDSealed: p.sealed, CreatedAt: o.CreatedAt, UpdatedAt: o.CreatedAt,
			}
			if err := s.insertESIM(ctx, tx, o.ESIMs[i]); err != nil {
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
		return s.charge(ctx, tx, o.AccountID, o.Total, o.ID, desc, o.CreatedAt)
	})
	return replay, err
}

// ESIMOrder implements skygate.ESIMStore.
func (s *Store) ESIMOrder(ctx context.Context, accountID, orderID string) (*skygate.ESIMOrder, error) {
	var o *skygate.ESIMOrder
	err := s.inReadTx(ctx, func(tx *sql.Tx) error {
		var err error
		if o, err = scanESIMOrder(tx.QueryRowContext(ctx, s.q(qESIMOrder), accountID, orderID)); err != nil {
			return err
		}
		return s.attachESIMs(ctx, tx, []*skygate.ESIMOrder{o}, s.q(qOrderESIMs), accountID, orderID)
	})
	if err != nil {
		return nil, s.interpret(outcome{op: "get eSIM order", notFound: esimOrderNotFound}, err)
	}
	return o, nil
}

// ListESIMOrders implements skygate.ESIMStore. A Limit of zero or less returns every
// order after Offset.
func (s *Store) ListESIMOrders(ctx context.Context, accountID string, p skygate.Page) ([]*skygate.ESIMOrder, int, error) {
	limit, offset := pageArgs(p)
	orders := []*skygate.ESIMOrder{}
	var total int
	err := s.inReadTx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, s.q(qListESIMOrders), accountID, limit, offset)
		if err != nil {
			return err
		}
		for rows.Next() {
			o, err := scanESIMOrder(rows)
			if err != nil {
				rows.Close()
				return err
			}
			orders = append(orders, o)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		err = s.attachESIMs(ctx, tx, orders, s.q(qPageESIMs), accountID, limit, offset)
		if err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, s.q(qCountESIMOrders), accountID).Scan(&total)
	})
	if err != nil {
		return nil, 0, s.interpret(outcome{op: "list eSIM orders"}, err)
	}
	return orders, total, nil
}

// attachESIMs runs query inside tx, which reads the eSIMs of orders (and maybe of
// others, which it skips) ordered by order and ICCID, and sets their ESIMs.
func (s *Store) attachESIMs(ctx context.Context, tx *sql.Tx, orders []*skygate.ESIMOrder, query string, args ...any) error {
	if len(orders) == 0 {
		return nil
	}
	byID := make(map[string]*skygate.ESIMOrder, len(orders))
	for _, o := range orders {
		byID[o.ID] = o
	}
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		e, err := scanESIM(rows)
		if err != nil {
			return err
		}
		if o := byID[e.OrderID]; o != nil {
			o.ESIMs = append(o.ESIMs, e)
		}
	}
	return rows.Err()
}
