package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

const (
	countPoolProfiles = `SELECT status, count(*) FROM esim_pool_profiles
		WHERE account_id = $1 GROUP BY status`
	// insertPoolProfiles inserts profiles given as arrays of their columns; the rows
	// it does not return are duplicates of a profile in some pool (after waiting for a
	// concurrent import of the same ICCID to commit).
	insertPoolProfiles = `INSERT INTO esim_pool_profiles
			(iccid, account_id, smdp_address, matching_id_enc, status, order_id, imported_at)
		SELECT v.iccid, $1, v.smdp_address, v.matching_id_enc, 'Available', NULL, v.imported_at
		FROM unnest($2::text[], $3::text[], $4::bytea[], $5::timestamptz[])
			AS v (iccid, smdp_address, matching_id_enc, imported_at)
		ON CONFLICT (iccid) DO NOTHING
		RETURNING iccid`

	// Allocation marks the oldest Available profiles of the account Assigned to the
	// order and returns them, in one statement. allocateProfilesSkipping skips rows
	// that a concurrent order holds, so two orders never wait for, or get, the same
	// profile; allocateProfilesWaiting waits for those orders to end. The pick is a
	// MATERIALIZED CTE so that it runs once: as a subquery of the UPDATE it could be
	// run again for rows that changed meanwhile and pick more profiles than asked for.
	allocateProfilesSkipping = `WITH picked AS MATERIALIZED (
			SELECT iccid FROM esim_pool_profiles
			WHERE account_id = $1 AND status = 'Available'
			ORDER BY imported_at, iccid LIMIT $2
			FOR UPDATE SKIP LOCKED
		)
		UPDATE esim_pool_profiles SET status = 'Assigned', order_id = $3
		WHERE iccid IN (SELECT iccid FROM picked)
		RETURNING iccid, smdp_address, matching_id_enc`
	allocateProfilesWaiting = `WITH picked AS MATERIALIZED (
			SELECT iccid FROM esim_pool_profiles
			WHERE account_id = $1 AND status = 'Available'
			ORDER BY imported_at, iccid LIMIT $2
			FOR UPDATE
		)
		UPDATE esim_pool_profiles SET status = 'Assigned', order_id = $3
		WHERE iccid IN (SELECT iccid FROM picked)
		RETURNING iccid, smdp_address, matching_id_enc`
	// lockAllocation puts the allocations of one account that take it in line, to the
	// end of their transactions: those of orders that found the pool short without
	// it and start again (errAllocateInLine). Without it, such orders would wait for
	// the profiles of others in allocateProfilesWaiting, and the waiters, each holding
	// the profiles it had taken on its way, could wait for each other into a deadlock.
	// An order in line takes it before any profile, and an order not in line never
	// waits for a profile, so no cycle is left.
	lockAllocation = `SELECT pg_advisory_xact_lock(1397180226, hashtext($1))`
)

// ImportPoolProfiles implements skygate.ESIMStore. Any duplicate ICCID, in the request
// or in some pool, rolls the whole import back.
func (s *Store) ImportPoolProfiles(ctx context.Context, accountID string, profiles []*skygate.PoolProfile, audit *skygate.AuditEvent) error {
	return sqlstore.ImportPoolProfiles(ctx, s.db, insertProfiles, accountID, profiles, audit)
}

// insertProfiles is sqlstore.InsertProfiles in one statement (insertPoolProfiles).
func insertProfiles(ctx context.Context, tx *sqlstore.Tx, accountID string, profiles []*skygate.PoolProfile) ([]int, error) {
	var (
		iccids, smdp []string
		matching     [][]byte
		imported     []time.Time
	)
	for _, p := range profiles {
		iccids = append(iccids, p.ICCID)
		smdp = append(smdp, p.SMDPAddress)
		matching = append(matching, sqlstore.NonNil(p.MatchingIDSealed))
		imported = append(imported, p.ImportedAt)
	}
	inserted, err := sqlstore.QueryAll(ctx, tx, func(row sqlstore.Scanner) (iccid string, err error) {
		return iccid, row.Scan(&iccid)
	}, insertPoolProfiles, accountID, iccids, smdp, matching, imported)
	if err != nil || len(inserted) == len(profiles) {
		return nil, err
	}
	isNew := make(map[string]bool, len(inserted))
	for _, iccid := range inserted {
		isNew[iccid] = true
	}
	var taken []int
	for i, p := range profiles {
		if !isNew[p.ICCID] {
			taken = append(taken, i)
		}
	}
	return taken, nil
}

// PoolCounts implements skygate.ESIMStore.
func (s *Store) PoolCounts(ctx context.Context, accountID string) (*skygate.PoolCounts, error) {
	return sqlstore.PoolCounts(ctx, s.db, countPoolProfiles, accountID)
}

func scanProfile(row sqlstore.Scanner) (p sqlstore.Profile, err error) {
	return p, row.Scan(&p.ICCID, &p.SMDP, &p.Sealed)
}

// errAllocateInLine is allocateSkipping's answer when an order finds fewer free
// profiles than it needs: profiles that concurrent orders hold may yet come back, and
// waiting for them while holding others could deadlock. CreateESIMOrder rolls the
// order back and runs it again with allocateInLine.
var errAllocateInLine = errors.New("postgres: the pool is short outside the allocation line; run the order in line")

// allocateSkipping is sqlstore.Allocate among the profiles no concurrent order holds
// (SKIP LOCKED): it waits for nobody, and returns errAllocateInLine when that leaves
// it short.
func allocateSkipping(ctx context.Context, tx *sqlstore.Tx, accountID, orderID string, n int) ([]sqlstore.Profile, error) {
	out, err := sqlstore.QueryAll(ctx, tx, scanProfile, allocateProfilesSkipping, accountID, n, orderID)
	if err == nil && len(out) < n {
		return nil, errAllocateInLine
	}
	return out, err
}

// allocateInLine is sqlstore.Allocate behind the account's allocation lock: it takes
// the profiles no concurrent order holds and, when that leaves it short, waits for
// the orders holding profiles.
func allocateInLine(ctx context.Context, tx *sqlstore.Tx, accountID, orderID string, n int) ([]sqlstore.Profile, error) {
	if _, err := tx.ExecContext(ctx, lockAllocation, accountID); err != nil {
		return nil, err
	}
	out, err := sqlstore.QueryAll(ctx, tx, scanProfile, allocateProfilesSkipping, accountID, n, orderID)
	if err != nil {
		return nil, err
	}
	if len(out) < n {
		// SKIP LOCKED also skips profiles that a concurrent order holds and may yet
		// give back (it can still fail, for one when its debit finds the balance
		// spent). Before answering PoolExhausted, wait for those orders to end and
		// look again: committed allocations no longer match, rolled back ones do.
		more, err := sqlstore.QueryAll(ctx, tx, scanProfile, allocateProfilesWaiting, accountID, n-len(out), orderID)
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	if len(out) < n {
		return nil, skygate.Errorf(skygate.CodePoolExhausted,
			"the account's eSIM pool cannot supply %d more eSIMs", n)
	}
	return out, nil
}
