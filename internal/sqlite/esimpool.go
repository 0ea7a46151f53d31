package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

const (
	// insertPoolProfile changes nothing when the ICCID is in some pool already.
	insertPoolProfile = `INSERT INTO esim_pool_profiles
			(iccid, account_id, smdp_address, matching_id_enc, status, order_id, imported_at)
		VALUES (?, ?, ?, ?, 'Available', NULL, ?)
		ON CONFLICT (iccid) DO NOTHING`
	countPoolProfiles = `SELECT status, count(*) FROM esim_pool_profiles
		WHERE account_id = ? GROUP BY status`
	// assignProfiles marks the oldest Available profiles of the account Assigned to
	// the order and returns them.
	assignProfiles = `UPDATE esim_pool_profiles SET status = 'Assigned', order_id = ?
		WHERE iccid IN (SELECT iccid FROM esim_pool_profiles
			WHERE account_id = ? AND status = 'Available'
			ORDER BY imported_at, iccid LIMIT ?)
		RETURNING iccid, smdp_address, matching_id_enc`
)

// ImportPoolProfiles implements skygate.ESIMStore. Any duplicate ICCID, in the request
// or in some pool, rolls the whole import back.
func (s *Store) ImportPoolProfiles(ctx context.Context, accountID string, profiles []*skygate.PoolProfile, audit *skygate.AuditEvent) error {
	var problems []skygate.FieldError
	first := make(map[string]int, len(profiles))
	for i, p := range profiles {
		p.AccountID, p.Status, p.OrderID, p.ImportedAt = accountID, skygate.PoolAvailable, "", sqlstore.UTC(p.ImportedAt)
		if j, ok := first[p.ICCID]; ok {
			problems = append(problems, skygate.FieldError{
				Field: fmt.Sprintf("[%d].iccid", i), Message: fmt.Sprintf("repeats the ICCID of [%d]", j),
			})
			continue
		}
		first[p.ICCID] = i
	}
	if len(problems) > 0 {
		return skygate.ValidationError(problems...)
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		for i, p := range profiles {
			res, err := tx.ExecContext(ctx, insertPoolProfile, p.ICCID, accountID, p.SMDPAddress,
				sqlstore.NonNil(p.MatchingIDSealed), micros(p.ImportedAt))
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n == 0 {
				problems = append(problems, skygate.FieldError{
					Field: fmt.Sprintf("[%d].iccid", i), Message: "is already in a pool",
				})
			}
		}
		if len(problems) > 0 {
			return skygate.ValidationError(problems...)
		}
		return appendAudit(ctx, tx, audit)
	})
	return interpret(sqlstore.Outcome{Op: "import pool profiles", NotFound: accountNotFound}, err)
}

// PoolCounts implements skygate.ESIMStore.
func (s *Store) PoolCounts(ctx context.Context, accountID string) (*skygate.PoolCounts, error) {
	c := &skygate.PoolCounts{ByStatus: map[skygate.PoolProfileStatus]int{}}
	for _, st := range skygate.PoolProfileStatuses {
		c.ByStatus[st] = 0
	}
	type count struct {
		status string
		n      int
	}
	counts, err := sqlstore.QueryAll(ctx, s.read, func(row sqlstore.Scanner) (c count, err error) {
		return c, row.Scan(&c.status, &c.n)
	}, countPoolProfiles, accountID)
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "count pool profiles"}, err)
	}
	for _, n := range counts {
		c.ByStatus[skygate.PoolProfileStatus(n.status)] = n.n
		c.Total += n.n
	}
	return c, nil
}

// allocatedProfile is a pool profile taken for an order.
type allocatedProfile struct {
	iccid, smdp string
	sealed      []byte
}

// allocateProfiles marks n Available profiles of the account Assigned to orderID
// inside tx, oldest import first, and returns them, or returns CodePoolExhausted when
// fewer than n are free.
func allocateProfiles(ctx context.Context, tx *sql.Tx, accountID, orderID string, n int) ([]allocatedProfile, error) {
	out, err := sqlstore.QueryAll(ctx, tx, func(row sqlstore.Scanner) (p allocatedProfile, err error) {
		return p, row.Scan(&p.iccid, &p.smdp, &p.sealed)
	}, assignProfiles, orderID, accountID, n)
	if err != nil {
		return nil, err
	}
	if len(out) < n {
		return nil, skygate.Errorf(skygate.CodePoolExhausted,
			"the account's eSIM pool cannot supply %d more eSIMs", n)
	}
	return out, nil
}
