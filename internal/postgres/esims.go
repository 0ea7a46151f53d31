package postgres

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
		WHERE e.account_id = $1 AND e.iccid = $2`
	lockESIM = `SELECT ` + esimColumns + ` FROM ` + esimFrom + `
		WHERE e.account_id = $1 AND e.iccid = $2 FOR UPDATE OF e`
	// An empty filter argument matches every row.
	listESIMs = `SELECT ` + esimColumns + ` FROM ` + esimFrom + `
		WHERE e.account_id = $1 AND ($2 = '' OR e.status = $2) AND ($3 = '' OR e.order_id = $3)
		ORDER BY e.created_at DESC, e.order_id, e.iccid LIMIT $4 OFFSET $5`
	countESIMs = `SELECT count(*) FROM esims e
		WHERE e.account_id = $1 AND ($2 = '' OR e.status = $2) AND ($3 = '' OR e.order_id = $3)`
	updateESIM = `UPDATE esims SET status = $1, total_mb = $2, used_mb = $3, validity_days = $4,
		notified_thresholds = $5, installed_at = $6, activated_at = $7, expires_at = $8, updated_at = $9
		WHERE account_id = $10 AND iccid = $11`
	claimDueESIM = `SELECT ` + esimColumns + ` FROM ` + esimFrom + `
		WHERE e.status IN ('Active', 'Depleted') AND e.expires_at <= $1
		ORDER BY e.expires_at, e.iccid LIMIT 1
		FOR UPDATE OF e SKIP LOCKED`
)

// ESIM implements skygate.ESIMStore.
func (s *Store) ESIM(ctx context.Context, accountID, iccid string) (*skygate.ESIM, error) {
	e, err := sqlstore.ScanESIM(s.db.QueryRowContext(ctx, selectESIM, accountID, iccid))
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "get eSIM", NotFound: esimNotFound}, err)
	}
	return e, nil
}

// ListESIMs implements skygate.ESIMStore. A Limit of zero or less returns every eSIM
// after Offset.
func (s *Store) ListESIMs(ctx context.Context, accountID string, f skygate.ESIMFilter, p skygate.Page) ([]*skygate.ESIM, int, error) {
	return listPage(ctx, s, "list eSIMs", sqlstore.ScanESIM, listESIMs, countESIMs, p,
		accountID, string(f.Status), f.OrderID)
}

// UpdateESIM implements skygate.ESIMStore. The read locks the row, so a concurrent
// update waits and then sees this one's result.
func (s *Store) UpdateESIM(ctx context.Context, accountID, iccid string, now time.Time, apply skygate.ESIMApply) (*skygate.ESIM, error) {
	var (
		out       *skygate.ESIM
		delivered int
	)
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		before, err := lockAccountESIM(ctx, tx, accountID, iccid)
		if err != nil {
			return err
		}
		out, delivered, err = applyESIM(ctx, tx, before, now, apply)
		return err
	})
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "update eSIM", NotFound: esimNotFound}, err)
	}
	s.deliveriesCommitted(delivered)
	return out, nil
}

// lockAccountESIM reads and locks the account's eSIM inside tx; a missing eSIM is
// CodeNotFound.
func lockAccountESIM(ctx context.Context, tx *sql.Tx, accountID, iccid string) (*skygate.ESIM, error) {
	e, err := sqlstore.ScanESIM(tx.QueryRowContext(ctx, lockESIM, accountID, iccid))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sqlstore.NotFound(esimNotFound)
	}
	return e, err
}

// applyESIM calls apply on a copy of before, writes the copy and the events inside tx,
// and returns the copy and the webhook deliveries written.
func applyESIM(ctx context.Context, tx *sql.Tx, before *skygate.ESIM, now time.Time, apply skygate.ESIMApply) (*skygate.ESIM, int, error) {
	after := before.Clone()
	var events []*skygate.Event
	if apply != nil {
		var err error
		if events, err = apply(before, after); err != nil {
			return nil, 0, err
		}
	}
	after.UpdatedAt = now
	sqlstore.NormaliseESIM(after)
	notified, err := sqlstore.JSONText(after.NotifiedThresholds)
	if err != nil {
		return nil, 0, err
	}
	_, err = tx.ExecContext(ctx, updateESIM, string(after.Status), after.Usage.TotalMB,
		after.Usage.UsedMB, after.ValidityDays, notified, after.InstalledAt,
		after.ActivatedAt, after.ExpiresAt, after.UpdatedAt, before.AccountID, before.ICCID)
	if err != nil {
		return nil, 0, err
	}
	delivered, err := insertEvents(ctx, tx, events)
	return after, delivered, err
}

// ExpireESIMs implements skygate.ESIMStore. Each eSIM is its own transaction;
// claimers skip the eSIMs others hold.
func (s *Store) ExpireESIMs(ctx context.Context, now time.Time, limit int, apply skygate.ESIMApply) (int, error) {
	n := 0
	for limit <= 0 || n < limit {
		var (
			moved     bool
			delivered int
		)
		err := s.inTx(ctx, func(tx *sql.Tx) error {
			before, err := sqlstore.ScanESIM(tx.QueryRowContext(ctx, claimDueESIM, sqlstore.UTC(now)))
			if errors.Is(err, sql.ErrNoRows) {
				return nil
			}
			if err != nil {
				return err
			}
			after, d, err := applyESIM(ctx, tx, before, now, apply)
			if err != nil {
				return err
			}
			if after.Status == skygate.ESIMActive || after.Status == skygate.ESIMDepleted {
				// Left due, the eSIM would be claimed again forever.
				return fmt.Errorf("expiry left eSIM %s in status %s", after.ICCID, after.Status)
			}
			moved, delivered = true, d
			return nil
		})
		if err != nil {
			return n, interpret(sqlstore.Outcome{Op: "expire eSIMs"}, err)
		}
		s.deliveriesCommitted(delivered)
		if !moved {
			break
		}
		n++
	}
	return n, nil
}
