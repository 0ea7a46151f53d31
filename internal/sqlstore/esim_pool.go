package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/skygate/skygate"
)

var (
	qPoolCounts = newStmt(`SELECT status, COUNT(*) FROM esim_pool_profiles
		WHERE account_id = ? GROUP BY status`)
	// Allocation marks the oldest Available profiles of the account Assigned to the
	// order and returns them, in one statement. The locked form skips rows that a
	// concurrent order holds, so two orders never wait for, or get, the same profile;
	// the waiting form waits for those orders to end. The pick is a MATERIALIZED CTE so
	// that PostgreSQL runs it once: as a subquery of the UPDATE it could be run again
	// for rows that changed meanwhile and pick more profiles than asked for.
	pickProfiles = `SELECT iccid FROM esim_pool_profiles
		WHERE account_id = ? AND status = '` + string(skygate.PoolAvailable) + `'
		ORDER BY imported_at, iccid ` + limitArg
	assignPicked = `UPDATE esim_pool_profiles SET status = '` + string(skygate.PoolAssigned) + `', order_id = ?
		WHERE iccid IN (SELECT iccid FROM picked)
		RETURNING iccid, smdp_address, matching_id_enc`
	qAllocateProfiles       = newStmt(`WITH picked AS MATERIALIZED (` + pickProfiles + `) ` + assignPicked)
	qAllocateProfilesLocked = newStmt(`WITH picked AS MATERIALIZED (` + pickProfiles + ` FOR UPDATE SKIP LOCKED) ` + assignPicked)
	qAllocateProfilesWait   = newStmt(`WITH picked AS MATERIALIZED (` + pickProfiles + ` FOR UPDATE) ` + assignPicked)
	// qAllocationLock puts the allocations of one account that take it in line, to the
	// end of their transactions (PostgreSQL): those of orders that found the pool short
	// without it and start again (errAllocateInLine). Without it, such orders would
	// wait for the profiles of others in the wait query, and the waiters, each holding
	// the profiles it had taken on its way, could wait for each other: PostgreSQL would
	// break the cycle with a deadlock error. An order in line locks it before any
	// profile, and an order not in line never waits for a profile, so no cycle is left.
	qAllocationLock = newStmt(`SELECT pg_advisory_xact_lock(1397180226, hashtext(?))`)
)

// poolImportBatch is how many profiles one INSERT carries: 7 parameters each stays far
// below both engines' limits on parameters per statement.
const poolImportBatch = 200

// ImportPoolProfiles implements skygate.ESIMStore. Each batch is one INSERT … ON
// CONFLICT DO NOTHING RETURNING iccid: the rows it does not return are duplicates of a
// profile in some pool (on PostgreSQL after waiting for a concurrent import of the same
// ICCID to commit), and any duplicate rolls the whole import back.
func (s *Store) ImportPoolProfiles(ctx context.Context, accountID string, profiles []*skygate.PoolProfile, audit *skygate.AuditEvent) error {
	var problems []skygate.FieldError
	first := make(map[string]int, len(profiles))
	for i, p := range profiles {
		p.AccountID, p.Status, p.OrderID, p.ImportedAt = accountID, skygate.PoolAvailable, "", utc(p.ImportedAt)
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
		for start := 0; start < len(profiles); start += poolImportBatch {
			batch := profiles[start:min(start+poolImportBatch, len(profiles))]
			inserted, err := s.insertProfiles(ctx, tx, batch)
			if err != nil {
				return err
			}
			for i, p := range batch {
				if !inserted[p.ICCID] {
					problems = append(problems, skygate.FieldError{
						Field: fmt.Sprintf("[%d].iccid", start+i), Message: "is already in a pool",
					})
				}
			}
		}
		if len(problems) > 0 {
			return skygate.ValidationError(problems...)
		}
		return s.appendAudit(ctx, tx, audit)
	})
	return s.interpret(outcome{op: "import pool profiles", notFound: accountNotFound}, err)
}

// insertProfiles inserts one batch inside tx and returns the ICCIDs it inserted.
func (s *Store) insertProfiles(ctx context.Context, tx *sql.Tx, batch []*skygate.PoolProfile) (map[string]bool, error) {
	var q strings.Builder
	q.WriteString(`INSERT INTO esim_pool_profiles
		(iccid, account_id, smdp_address, matching_id_enc, status, order_id, imported_at) VALUES `)
	args := make([]any, 0, 7*len(batch))
	for i, p := range batch {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString("(" + placeholders(7) + ")")
		args = append(args, p.ICCID, p.AccountID, p.SMDPAddress, nonNil(p.MatchingIDSealed),
			string(p.Status), nil, s.time(p.ImportedAt))
	}
	q.WriteString(` ON CONFLICT (iccid) DO NOTHING RETURNING iccid`)
	rows, err := tx.QueryContext(ctx, s.dynamic(q.String()), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	inserted := make(map[string]bool, len(batch))
	for rows.Next() {
		var iccid string
		if err := rows.Scan(&iccid); err != nil {
			return nil, err
		}
		inserted[iccid] = true
	}
	return inserted, rows.Err()
}

// PoolCounts implements skygate.ESIMStore.
func (s *Store) PoolCounts(ctx context.Context, accountID string) (*skygate.PoolCounts, error) {
	c := &skygate.PoolCounts{ByStatus: map[skygate.PoolProfileStatus]int{}}
	for _, st := range skygate.PoolProfileStatuses {
		c.ByStatus[st] = 0
	}
	rows, err := s.read.QueryContext(ctx, s.q(qPoolCounts), accountID)
	if err != nil {
		return nil, s.interpret(outcome{op: "count pool profiles"}, err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			status string
			n      int
		)
		if err := rows.Scan(&status, &n); err != nil {
			return nil, s.interpret(outcome{op: "count pool profiles"}, err)
		}
		c.ByStatus[skygate.PoolProfileStatus(status)] = n
		c.Total += n
	}
	if err := rows.Err(); err != nil {
		return nil, s.interpret(outcome{op: "count pool profiles"}, err)
	}
	return c, nil
}

// allocatedProfile is a pool profile taken for an order.
type allocatedProfile struct {
	iccid, smdp string
	sealed      []byte
}

// assignProfiles runs an allocation query inside tx: it marks up to n Available
// profiles of the account Assigned to orderID and returns them.
func (s *Store) assignProfiles(ctx context.Context, tx *sql.Tx, query, accountID, orderID string, n int) ([]allocatedProfile, error) {
	rows, err := tx.QueryContext(ctx, query, accountID, n, orderID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []allocatedProfile
	for rows.Next() {
		var p allocatedProfile
		if err := rows.Scan(&p.iccid, &p.smdp, &p.sealed); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// errAllocateInLine is allocateProfiles' answer, on PostgreSQL, when an order that is
// not in line finds fewer than n free profiles: profiles that concurrent orders hold
// may yet come back, and waiting for them while holding others could deadlock. The
// caller rolls the order back and runs it again in line.
var errAllocateInLine = errors.New("sqlstore: the pool is short outside the allocation line; run the order in line")

// allocateProfiles marks n Available profiles of the account Assigned to orderID
// inside tx, oldest import first among those no concurrent order holds, and returns
// them, or returns CodePoolExhausted when fewer than n are free. On PostgreSQL an order
// takes the profiles no other order holds (SKIP LOCKED) and waits for nobody; only
// when that leaves it short does it wait, inLine (errAllocateInLine when not): behind
// the account's allocation lock, for the orders holding profiles.
func (s *Store) allocateProfiles(ctx context.Context, tx *sql.Tx, accountID, orderID string, n int, inLine bool) ([]allocatedProfile, error) {
	query := s.q(qAllocateProfiles)
	if s.concurrentWriters() {
		if inLine {
			if _, err := tx.ExecContext(ctx, s.q(qAllocationLock), accountID); err != nil {
				return nil, err
			}
		}
		query = s.q(qAllocateProfilesLocked)
	}
	out, err := s.assignProfiles(ctx, tx, query, accountID, orderID, n)
	if err != nil {
		return nil, err
	}
	if len(out) < n && s.concurrentWriters() {
		if !inLine {
			return nil, errAllocateInLine
		}
		// SKIP LOCKED also skips profiles that a concurrent order holds and may yet
		// give back (it can still fail, for one when its debit finds the balance
		// spent). Before answering PoolExhausted, wait for those orders to end and
		// look again: committed allocations no longer match, rolled back ones do.
		more, err := s.assignProfiles(ctx, tx, s.q(qAllocateProfilesWait), accountID, orderID, n-len(out))
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
