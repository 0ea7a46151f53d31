package postgres

import (
	"context"
	"database/sql"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

const idempotencyNotFound = "idempotency key not found"

const (
	selectIdempotency = `SELECT account_id, operation, idem_key, fingerprint, status_code,
		resource_id, body, created_at, expires_at, sealed
		FROM idempotency_records WHERE account_id = $1 AND operation = $2 AND idem_key = $3`
	selectLiveIdempotency = `SELECT account_id, operation, idem_key, fingerprint, status_code,
		resource_id, body, created_at, expires_at, sealed
		FROM idempotency_records
		WHERE account_id = $1 AND operation = $2 AND idem_key = $3 AND expires_at > $4`
	purgeIdempotency = `DELETE FROM idempotency_records WHERE expires_at < $1`
)

// scanIdempotency reads a record, its fingerprint and body opened.
func (s *Store) scanIdempotency(row sqlstore.Scanner) (*skygate.IdempotencyRecord, error) {
	return sqlstore.ScanIdempotency(s.sealer, row)
}

// IdempotencyRecord implements skygate.BookingStore.
func (s *Store) IdempotencyRecord(ctx context.Context, accountID, operation, key string, now time.Time) (*skygate.IdempotencyRecord, error) {
	r, err := s.scanIdempotency(s.db.QueryRowContext(ctx, selectLiveIdempotency, accountID, operation, key, sqlstore.UTC(now)))
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "get idempotency record", NotFound: idempotencyNotFound}, err)
	}
	return r, nil
}

// PurgeIdempotencyRecords implements skygate.BookingStore.
func (s *Store) PurgeIdempotencyRecords(ctx context.Context, before time.Time) (int, error) {
	res, err := s.db.ExecContext(ctx, purgeIdempotency, sqlstore.UTC(before))
	if err != nil {
		return 0, interpret(sqlstore.Outcome{Op: "purge idempotency records"}, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, interpret(sqlstore.Outcome{Op: "purge idempotency records"}, err)
	}
	return int(n), nil
}

// claimIdempotency claims a key for the write it records. ON CONFLICT makes the key
// the arbiter: it waits for a concurrent transaction that inserted the same key and
// then writes nothing, so a concurrent duplicate never gets past it; the rows it
// changed say who won (one: this transaction holds the key; none: a live record
// does). A record that has expired by the new one's creation is replaced. DO UPDATE,
// unlike DO NOTHING, locks the conflicting row even when its WHERE is false, so
// replays of one key queue behind each other's short transactions.
const claimIdempotency = `INSERT INTO idempotency_records (account_id, operation, idem_key,
		fingerprint, status_code, resource_id, body, created_at, expires_at, sealed)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, true)
	ON CONFLICT (account_id, operation, idem_key) DO UPDATE SET
		fingerprint = excluded.fingerprint, status_code = excluded.status_code,
		resource_id = excluded.resource_id, body = excluded.body,
		created_at = excluded.created_at, expires_at = excluded.expires_at,
		sealed = excluded.sealed
	WHERE idempotency_records.expires_at <= excluded.created_at`

// claimKey claims rec's key inside tx for the write it records (an eSIM order or
// top-up): it inserts rec, replacing a record of the key that has expired, or, when an
// unexpired record holds the key (after waiting for a concurrent holder to commit),
// returns that record and writes nothing.
func (s *Store) claimKey(ctx context.Context, tx *sql.Tx, rec *skygate.IdempotencyRecord) (*skygate.IdempotencyRecord, error) {
	args, err := s.idempotencyArgs(rec)
	if err != nil {
		return nil, err
	}
	res, err := tx.ExecContext(ctx, claimIdempotency, args...)
	if err != nil {
		return nil, err
	}
	if n, err := res.RowsAffected(); err != nil || n > 0 {
		return nil, err
	}
	return s.scanIdempotency(tx.QueryRowContext(ctx, selectIdempotency, rec.AccountID, rec.Operation, rec.Key))
}
