package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/skygate/skygate"
)

// An eSIM row joins its pool profile for the SM-DP+ address and the sealed matching ID.
const (
	esimColumns = `e.iccid, e.account_id, e.order_id, e.package_id, e.status, e.total_mb, e.used_mb,
	e.validity_days, e.notified_thresholds, e.installed_at, e.activated_at, e.expires_at, e.created_at,
	e.updated_at, p.smdp_address, p.matching_id_enc`
	esimFrom = `esims e JOIN esim_pool_profiles p ON p.iccid = e.iccid`
)

var (
	qInsertESIM = newStmt(`INSERT INTO esims (iccid, account_id, order_id, package_id, status, total_mb,
		used_mb, validity_days, notified_thresholds, installed_at, activated_at, expires_at, created_at,
		updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	qESIM       = newStmt(`SELECT ` + esimColumns + ` FROM ` + esimFrom + ` WHERE e.account_id = ? AND e.iccid = ?`)
	qESIMLocked = newStmt(`SELECT ` + esimColumns + ` FROM ` + esimFrom + ` WHERE e.account_id = ? AND e.iccid = ?
		FOR UPDATE OF e`)
	// The optional filters are written as "? = '' OR column = ?" so one statement serves
	// every combination.
	qListESIMs = newStmt(`SELECT ` + esimColumns + ` FROM ` + esimFrom + `
		WHERE e.account_id = ? AND (? = '' OR e.status = ?) AND (? = '' OR e.order_id = ?)
		ORDER BY e.created_at DESC, e.order_id, e.iccid ` + limitArg + ` OFFSET ?`)
	qCountESIMs = newStmt(`SELECT COUNT(*) FROM esims e
		WHERE e.account_id = ? AND (? = '' OR e.status = ?) AND (? = '' OR e.order_id = ?)`)
	qUpdateESIM = newStmt(`UPDATE esims SET status = ?, total_mb = ?, used_mb = ?, validity_days = ?,
		notified_thresholds = ?, installed_at = ?, activated_at = ?, expires_at = ?, updated_at = ?
		WHERE account_id = ? AND iccid = ?`)

	claimDueESIM = `SELECT ` + esimColumns + ` FROM ` + esimFrom + `
		WHERE e.status IN (?, ?) AND e.expires_at <= ? ORDER BY e.expires_at, e.iccid LIMIT 1`
	qClaimDueESIM       = newStmt(claimDueESIM)
	qClaimDueESIMLocked = newStmt(claimDueESIM + ` FOR UPDATE OF e SKIP LOCKED`)
)

// esimNotFound is the public message of a missing eSIM, including one of another
// account.
const esimNotFound = "eSIM not found"

// scanESIM reads one row of esimColumns.
func scanESIM(row scanner) (*skygate.ESIM, error) {
	var (
		e      skygate.ESIM
		status string
		total  sql.NullInt64
		used   int
	)
	err := row.Scan(&e.ICCID, &e.AccountID, &e.OrderID, &e.PackageID, &status, &total, &used,
		&e.ValidityDays, jsonCol{&e.NotifiedThresholds}, nullTimeCol{&e.InstalledAt},
		nullTimeCol{&e.ActivatedAt}, nullTimeCol{&e.ExpiresAt}, timeCol{&e.CreatedAt}, timeCol{&e.UpdatedAt},
		&e.SMDPAddress, &e.MatchingIDSealed)
	if err != nil {
		return nil, err
	}
	e.Status = skygate.ESIMStatus(status)
	e.Usage = skygate.NewESIMUsage(nullInt(total), used)
	if e.NotifiedThresholds == nil {
		e.NotifiedThresholds = []int{}
	}
	return &e, nil
}

// normaliseESIM brings e's times to the stored precision and its list to non-nil.
func normaliseESIM(e *skygate.ESIM) {
	e.CreatedAt, e.UpdatedAt = utc(e.CreatedAt), utc(e.UpdatedAt)
	for _, t := range []**time.Time{&e.InstalledAt, &e.ActivatedAt, &e.ExpiresAt} {
		if *t != nil {
			v := utc(**t)
			*t = &v
		}
	}
	if e.NotifiedThresholds == nil {
		e.NotifiedThresholds = []int{}
	}
}

// insertESIM inserts e inside tx, after normalising it.
func (s *Store) insertESIM(ctx context.Context, tx *sql.Tx, e *skygate.ESIM) error {
	normaliseESIM(e)
	notified, err := jsonText(e.NotifiedThresholds)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, s.q(qInsertESIM), e.ICCID, e.AccountID, e.OrderID, e.PackageID,
		string(e.Status), intArg(e.Usage.TotalMB), e.Usage.UsedMB, e.ValidityDays, notified,
		s.nullTime(e.InstalledAt), s.nullTime(e.ActivatedAt), s.nullTime(e.ExpiresAt),
		s.time(e.CreatedAt), s.time(e.UpdatedAt))
	return err
}

// ESIM implements skygate.ESIMStore.
func (s *Store) ESIM(ctx context.Context, accountID, iccid string) (*skygate.ESIM, error) {
	e, err := scanESIM(s.read.QueryRowContext(ctx, s.q(qESIM), accountID, iccid))
	if err != nil {
		return nil, s.interpret(outcome{op: "get eSIM", notFound: esimNotFound}, err)
	}
	return e, nil
}

// ListESIMs implements skygate.ESIMStore. A Limit of zero or less returns every eSIM
// after Offset.
func (s *Store) ListESIMs(ctx context.Context, accountID string, f skygate.ESIMFilter, p skygate.Page) ([]*skygate.ESIM, int, error) {
	return listPage(ctx, s, "list eSIMs", scanESIM, s.q(qListESIMs), s.q(qCountESIMs), p,
		accountID, string(f.Status), string(f.Status), f.OrderID, f.OrderID)
}

// UpdateESIM implements skygate.ESIMStore. On PostgreSQL the read locks the row
// (FOR UPDATE), so a concurrent update waits and then sees this one's result; SQLite's
// single writer serialises them anyway.
func (s *Store) UpdateESIM(ctx context.Context, accountID, iccid string, now time.Time, apply skygate.ESIMApply) (*skygate.ESIM, error) {
	var out *skygate.ESIM
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		before, err := s.lockESIM(ctx, tx, accountID, iccid)
		if err != nil {
			return err
		}
		out, err = s.applyESIM(ctx, tx, before, now, apply)
		return err
	})
	if err != nil {
		return nil, s.interpret(outcome{op: "update eSIM", notFound: esimNotFound}, err)
	}
	return out, nil
}

// lockESIM reads the account's eSIM inside tx, locking its row where writers run
// concurrently; a missing eSIM is CodeNotFound.
func (s *Store) lockESIM(ctx context.Context, tx *sql.Tx, accountID, iccid string) (*skygate.ESIM, error) {
	query := s.q(qESIM)
	if s.concurrentWriters() {
		query = s.q(qESIMLocked)
	}
	e, err := scanESIM(tx.QueryRowContext(ctx, query, accountID, iccid))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound(esimNotFound)
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
	normaliseESIM(after)
	notified, err := jsonText(after.NotifiedThresholds)
	if err != nil {
		return nil, err
	}
	_, err = tx.ExecContext(ctx, s.q(qUpdateESIM), string(after.Status), intArg(after.Usage.TotalMB),
		after.Usage.UsedMB, after.ValidityDays, notified, s.nullTime(after.InstalledAt),
		s.nullTime(after.ActivatedAt), s.nullTime(after.ExpiresAt), s.time(after.UpdatedAt),
		before.AccountID, before.ICCID)
	if err != nil {
		return nil, err
	}
	return after, s.insertEvents(ctx, tx, events)
}

// ExpireESIMs implements skygate.ESIMStore.
func (s *Store) ExpireESIMs(ctx context.Context, now time.Time, limit int, apply skygate.ESIMApply) (int, error) {
	query := s.q(qClaimDueESIM)
	if s.concurrentWriters() {
		query = s.q(qClaimDueESIMLocked)
	}
	n := 0
	for limit <= 0 || n < limit {
		var moved bool
		err := s.inTx(ctx, func(tx *sql.Tx) error {
			before, err := scanESIM(tx.QueryRowContext(ctx, query,
				string(skygate.ESIMActive), string(skygate.ESIMDepleted), s.time(now)))
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
			return n, s.interpret(outcome{op: "expire eSIMs"}, err)
		}
		if !moved {
			break
		}
		n++
	}
	return n, nil
}
