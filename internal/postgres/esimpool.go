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
	var problems []skygate.FieldError
	first := make(map[string]int, len(profiles))
	var (
		iccids, smdp []string
		matching     [][]byte
		imported     []time.Time
	)
	for i, p := range profiles {
		p.AccountID, p.Status, p.OrderID, p.ImportedAt = accountID, skygate.PoolAvailable, "", sqlstore.UTC(p.ImportedAt)
		if j, ok := first[p.ICCID]; ok {
			problems = append(problems, skygate.FieldError{
				Field: fmt.Sprintf("[%d].iccid", i), Message: fmt.Sprintf("repeats the ICCID of [%d]", j),
			})
			continue
		}
		first[p.ICCID] = i
		iccids = append(iccids, p.ICCID)
		smdp = append(smdp, p.SMDPAddress)
		matching = append(matching, sqlstore.NonNil(p.MatchingIDSealed))
		imported = append(imported, p.ImportedAt)
	}
	if len(problems) > 0 {
		return skygate.ValidationError(problems...)
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		inserted, err := sqlstore.QueryAll(ctx, tx, func(row sqlstore.Scanner) (iccid string, err error) {
			return iccid, row.Scan(&iccid)
		}, insertPoolProfiles, accountID, iccids, smdp, matching, imported)
		if err != nil {
			return err
		}
		if len(inserted) < len(profiles) {
			taken := make(map[string]bool, len(profiles))
			for _, p := range profiles {
				taken[p.ICCID] = true
			}
			for _, iccid := range inserted {
				taken[iccid] = false
			}
			for i, p := range profiles {
				if taken[p.ICCID] {
					problems = append(problems, skygate.FieldError{
						Field: fmt.Sprintf("[%d].iccid", i), Message: "is already in a pool",
					})
				}
			}
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
	counts, err := sqlstore.QueryAll(ctx, s.db, func(row sqlstore.Scanner) (c count, err error) {
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

func scanAllocated(row sqlstore.Scanner) (p allocatedProfile, err error) {
	return p, row.Scan(&p.iccid, &p.smdp, &p.sealed)
}

// errAllocateInLine is allocateProfiles' answer when an order that is not in line
// finds fewer than n free profiles: profiles that concurrent orders hold may yet come
// back, and waiting for them while holding others could deadlock. The caller rolls
// the order back and runs it again in line.
var errAllocateInLine = errors.New("postgres: the pool is short outside the allocation line; run the order in line")

// allocateProfiles marks n Available profiles of the account Assigned to orderID
// inside tx, oldest import first among those no concurrent order holds, and returns
// them, or returns CodePoolExhausted when fewer than n are free. An order takes the
// profiles no other order holds (SKIP LOCKED) and waits for nobody; only when that
// leaves it short does it wait, inLine (errAllocateInLine when not): behind the
// account's allocation lock, for the orders holding profiles.
func allocateProfiles(ctx context.Context, tx *sql.Tx, accountID, orderID string, n int, inLine bool) ([]allocatedProfile, error) {
	if inLine {
		if _, err := tx.ExecContext(ctx, lockAllocation, accountID); err != nil {
			return nil, err
		}
	}
	out, err := sqlstore.QueryAll(ctx, tx, scanAllocated, allocateProfilesSkipping, accountID, n, orderID)
	if err != nil {
		return nil, err
	}
	if len(out) < n {
		if !inLine {
			return nil, errAllocateInLine
		}
		// SKIP LOCKED also skips profiles that a concurrent order holds and may yet
		// give back (it can still fail, for one when its debit finds the balance
		// spent). Before answering PoolExhausted, wait for those orders to end and
		// look again: committed allocations no longer match, rolled back ones do.
		more, err := sqlstore.QueryAll(ctx, tx, scanAllocated, allocateProfilesWaiting, accountID, n-len(out), orderID)
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
