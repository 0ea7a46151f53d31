package sqlite

import (
	"context"

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
	return sqlstore.ImportPoolProfiles(ctx, s.db, insertProfiles, accountID, profiles, audit)
}

// insertProfiles is sqlstore.InsertProfiles, one statement (insertPoolProfile) a
// profile.
func insertProfiles(ctx context.Context, tx *sqlstore.Tx, accountID string, profiles []*skygate.PoolProfile) ([]int, error) {
	var taken []int
	for i, p := range profiles {
		res, err := tx.ExecContext(ctx, insertPoolProfile, p.ICCID, accountID, p.SMDPAddress,
			sqlstore.NonNil(p.MatchingIDSealed), p.ImportedAt.UnixMicro())
		if err != nil {
			return nil, err
		}
		if n, err := res.RowsAffected(); err != nil {
			return nil, err
		} else if n == 0 {
			taken = append(taken, i)
		}
	}
	return taken, nil
}

// PoolCounts implements skygate.ESIMStore.
func (s *Store) PoolCounts(ctx context.Context, accountID string) (*skygate.PoolCounts, error) {
	return sqlstore.PoolCounts(ctx, s.db, countPoolProfiles, accountID)
}

// allocateProfiles is sqlstore.Allocate in one statement (assignProfiles).
func allocateProfiles(ctx context.Context, tx *sqlstore.Tx, accountID, orderID string, n int) ([]sqlstore.Profile, error) {
	out, err := sqlstore.QueryAll(ctx, tx, func(row sqlstore.Scanner) (p sqlstore.Profile, err error) {
		return p, row.Scan(&p.ICCID, &p.SMDP, &p.Sealed)
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
