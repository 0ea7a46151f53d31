package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

// esimNotFound is the public message of a missing eSIM, including one of another
// account.
const esimNotFound = "eSIM not found"

// esimColumns are the columns sqlstore.ScanESIM reads: an eSIM row joins its pool
// profile (esimFrom) for the SM-DP+ address and the sealed matching ID.
const (
	esimColumns = `e.iccid, e.account_id, e.order_id, e.package_id, e.status, e.total_mb, e.used_mb,
	e.validity_days, e.notified_thresholds, e.installed_at, e.activated_at, e.expires_at, e.created_at,
	e.updated_at, p.smdp_address, p.matching_id_enc`
	esimFrom = `esims e JOIN esim_pool_profiles p ON p.iccid = e.iccid`
)

const (
	selectESIM = `SELECT ` + esimColumns + ` FROM ` + esimFrom + `
		WHERE e.account_id = ? AND e.iccid = ?`
	// An empty filter argument matches every row; each filter is passed twice.
	listESIMs = `SELECT ` + esimColumns + ` FROM ` + esimFrom + `
		WHERE e.account_id = ? AND (? = '' OR e.status = ?) AND (? = '' OR e.order_id = ?)
		ORDER BY e.created_at DESC, e.order_id, e.iccid LIMIT ? OFFSET ?`
	countESIMs = `SELECT count(*) FROM esims e
		WHERE e.account_id = ? AND (? = '' OR e.status = ?) AND (? = '' OR e.order_id = ?)`
	updateESIM = `UPDATE esims SET status = ?, total_mb = ?, used_mb = ?, validity_days = ?,
		notified_thresholds = ?, installed_at = ?, activated_at = ?, expires_at = ?, updated_at = ?
		WHERE account_id = ? AND iccid = ?`
	claimDueESIM = `SELECT ` + esimColumns + ` FROM ` + esimFrom + `
		WHERE e.status IN ('Active', 'Depleted') AND e.expires_at <= ?
		ORDER BY e.expires_at, e.iccid LIMIT 1`
)

// ESIM implements skygate.ESIMStore.
func (s *Store) ESIM(ctx context.Context, accountID, iccid string) (*skygate.ESIM, error) {
	e, err := sqlstore.ScanESIM(s.read.QueryRowContext(ctx, selectESIM, accountID, iccid))
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "get eSIM", NotFound: esimNotFound}, err)
	}
	return e, nil
}

// ListESIMs implements skygate.ESIMStore. A Limit of zero or less returns every eSIM
// after Offset.
func (s *Store) ListESIMs(ctx context.Context, accountID string, f skygate.ESIMFilter, p skygate.Page) ([]*skygate.ESIM, int, error) {
	return listPage(ctx, s, "list eSIMs", sqlstore.ScanESIM, listESIMs, countESIMs, p,
		accountID, string(f.Status), string(f.Status), f.OrderID, f.OrderID)
}

// UpdateESIM implements skygate.ESIMStore. The single writer runs concurrent updates
// one after the other, each seeing the result of the one before.
func (s *Store) UpdateESIM(ctx context.Context, accountID, iccid string, now time.Time, apply skygate.ESIMApply) (*skygate.ESIM, error) {
	var out *skygate.ESIM
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		before, err := readAccountESIM(ctx, tx, accountID, iccid)
		if err != nil {
			return err
		}
		out, err = s.applyESIM(ctx, tx, before, now, apply)
		return err
	})
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "update eSIM", NotFound: esimNotFound}, err)
	}
	return out, nil
}

// readAccountESIM reads the account's eSIM inside tx; a missing eSIM is CodeNotFound.
func readAccountESIM(ctx context.Context, tx *sql.Tx, accountID, iccid string) (*skygate.ESIM, error) {
	e, err := sqlstore.ScanESIM(tx.QueryRowContext(ctx, selectESIM, accountID, iccid))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sqlstore.NotFound(esimNotFound)
	}
	return e, err
}

// applyESIM calls apply on a copy of before, writes the copy and the events inside tx,
// and returns the copy.
func (s *Store) applyESIM(ctx context.Context, tx *sql.Tx, before *skygate.ESIM, now time.Time, apply skygate.ESIMApply) (*skygate.ESIM, error) {
	after := before.Clone()
	var events []*skygate.Event
	if apply != nil {
		var err error
		if events, err = apply(before, after); err != nil {
			return nil, err
		}
	}
	after.UpdatedAt = now
	sqlstore.NormaliseESIM(after)
	notified, err := sqlstore.JSONText(after.NotifiedThresholds)
	if err != nil {
		return nil, err
	}
	_, err = tx.ExecContext(ctx, updateESIM, string(after.Status), after.Usage.TotalMB,
		after.Usage.UsedMB, after.ValidityDays, notified, nullMicros(after.InstalledAt),
		nullMicros(after.ActivatedAt), nullMicros(after.ExpiresAt), micros(after.UpdatedAt),
		before.AccountID, before.ICCID)
	if err != nil {
		return nil, err
	}
	return after, s.insertEvents(ctx, tx, events)
}

// ExpireESIMs implements skygate.ESIMStore. Each eSIM is its own transaction.
func (s *Store) ExpireESIMs(ctx context.Context, now time.Time, limit int, apply skygate.ESIMApply) (int, error) {
	n := 0
	for limit <= 0 || n < limit {
		var moved bool
		err := s.inTx(ctx, func(tx *sql.Tx) error {
			before, err := sqlstore.ScanESIM(tx.QueryRowContext(ctx, claimDueESIM, micros(now)))
			if errors.Is(err, sql.ErrNoRows) {
				return nil
			}
			if err != nil {
				return err
			}
			after, err := s.applyESIM(ctx, tx, before, now, apply)
			if err != nil {
				return err
			}
			if after.Status == skygate.ESIMActive || after.Status == skygate.ESIMDepleted {
				// Left due, the eSIM would be claimed again forever.
				return fmt.Errorf("expiry left eSIM %s in status %s", after.ICCID, after.Status)
			}
			moved = true
			return nil
		})
		if err != nil {
			return n, interpret(sqlstore.Outcome{Op: "expire eSIMs"}, err)
		}
		if !moved {
			break
		}
		n++
	}
	return n, nil
}
