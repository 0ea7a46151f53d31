package postgres

import (
	"context"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

// esimColumns are the columns sqlstore.ScanESIM reads: an eSIM row joins its pool
// profile (esimFrom) for the SM-DP+ address and the sealed matching ID.
const (
	esimColumns = `e.iccid, e.account_id, e.order_id, e.package_id, e.status, e.total_mb, e.used_mb,
	e.validity_days, e.notified_thresholds, e.installed_at, e.activated_at, e.expires_at, e.created_at,
	e.updated_at, p.smdp_address, p.matching_id_enc, e.livemode, e.profile_state, e.canceled_at,
	e.expiry_warned, e.refund_until`
	esimFrom = `esims e JOIN esim_pool_profiles p ON p.iccid = e.iccid`
)

const (
	selectESIM = `SELECT ` + esimColumns + ` FROM ` + esimFrom + `
		WHERE e.account_id = $1 AND e.iccid = $2`
	// FOR NO KEY UPDATE serialises the changes of an eSIM without blocking the
	// inserts into esim_history and esim_topups, whose foreign keys take KEY SHARE.
	lockESIM = `SELECT ` + esimColumns + ` FROM ` + esimFrom + `
		WHERE e.account_id = $1 AND e.iccid = $2 FOR NO KEY UPDATE OF e`
	// An empty filter argument matches every row.
	listESIMs = `SELECT ` + esimColumns + ` FROM ` + esimFrom + `
		WHERE e.account_id = $1 AND ($2 = '' OR e.status = $2) AND ($3 = '' OR e.order_id = $3)
		ORDER BY e.created_at DESC, e.order_id, e.iccid LIMIT $4 OFFSET $5`
	countESIMs = `SELECT count(*) FROM esims e
		WHERE e.account_id = $1 AND ($2 = '' OR e.status = $2) AND ($3 = '' OR e.order_id = $3)`
	updateESIM = `UPDATE esims SET status = $1, total_mb = $2, used_mb = $3, validity_days = $4,
		notified_thresholds = $5, installed_at = $6, activated_at = $7, expires_at = $8, updated_at = $9,
		profile_state = $10, canceled_at = $11, expiry_warned = $12
		WHERE account_id = $13 AND iccid = $14`
	insertESIMHistory = `INSERT INTO esim_history (account_id, iccid, at, kind, data)
		VALUES ($1, $2, $3, $4, $5)`
	claimDueESIM = `SELECT ` + esimColumns + ` FROM ` + esimFrom + `
		WHERE e.status IN ('Active', 'Depleted') AND e.expires_at <= $1 AND NOT (e.iccid = ANY($2))
		ORDER BY e.expires_at, e.iccid LIMIT 1
		FOR NO KEY UPDATE OF e SKIP LOCKED`
)

// changeSQL is the SQL of a change of an eSIM (sqlstore.ChangeSQL).
var changeSQL = sqlstore.ChangeSQL{Lock: lockESIM, Update: updateESIM, History: insertESIMHistory}

// ESIM implements skygate.ESIMStore.
func (s *Store) ESIM(ctx context.Context, accountID, iccid string) (*skygate.ESIM, error) {
	return sqlstore.Get(ctx, s.db, sqlstore.Outcome{Op: "get eSIM", NotFound: sqlstore.ESIMNotFound},
		sqlstore.ScanESIM, selectESIM, accountID, iccid)
}

// ListESIMs implements skygate.ESIMStore. A Limit of zero or less returns every eSIM
// after Offset.
func (s *Store) ListESIMs(ctx context.Context, accountID string, f skygate.ESIMFilter, p skygate.Page) ([]*skygate.ESIM, int, error) {
	return sqlstore.ListPage(ctx, s.db, "list eSIMs", sqlstore.ScanESIM, listESIMs, countESIMs, p,
		accountID, string(f.Status), f.OrderID)
}

// UpdateESIM implements skygate.ESIMStore. The read locks the row, so a concurrent
// update waits and then sees this one's result.
func (s *Store) UpdateESIM(ctx context.Context, accountID, iccid string, now time.Time, apply skygate.ESIMApply) (*skygate.ESIM, error) {
	return sqlstore.UpdateESIM(ctx, s.db, changeSQL, accountID, iccid, now, apply)
}

// ExpireESIMs implements skygate.ESIMStore. Each eSIM is its own transaction;
// claimers skip the eSIMs others hold.
func (s *Store) ExpireESIMs(ctx context.Context, now time.Time, limit int, apply skygate.ESIMApply) (int, error) {
	return sqlstore.ExpireESIMs(ctx, s.db, claimDueESIM, changeSQL, now, limit, apply)
}
