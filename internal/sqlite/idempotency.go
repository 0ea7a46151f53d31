package sqlite

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
		FROM idempotency_records WHERE account_id = ? AND operation = ? AND idem_key = ?`
	selectLiveIdempotency = `SELECT account_id, operation, idem_key, fingerprint, status_code,
		resource_id, body, created_at, expires_at, sealed
		FROM idempotency_records
		WHERE account_id = ? AND operation = ? AND idem_key = ? AND expires_at > ?`
	purgeIdempotency = `DELETE FROM idempotency_records WHERE expires_at < ?`

	// claimIdempotency claims a key for the write it records. The single writer runs
	// one claim at a time; the rows it changed say who holds the key (one: this
	// transaction; none: a live record). A record that has expired by the new one's
	// creation is replaced.
	claimIdempotency = `INSERT INTO idempotency_records (account_id, operation, idem_key,
			fingerprint, status_code, resource_id, body, created_at, expires_at, sealed)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, TRUE)
		ON CONFLICT (account_id, operation, idem_key) DO UPDATE SET
			fingerprint = excluded.fingerprint, status_code = excluded.status_code,
			resource_id = excluded.resource_id, body = excluded.body,
			created_at = excluded.created_at, expires_at = excluded.expires_at,
			sealed = excluded.sealed
		WHERE idempotency_records.expires_at <= excluded.created_at`
)

// scanIdempotency reads a record, its fingerprint and body opened.
func (s *Store) scanIdempotency(row sqlstore.Scanner) (*skygate.IdempotencyRecord, error) {
	return sqlstore.ScanIdempotency(s.sealer, row)
}

// IdempotencyRecord implements skygate.BookingStore.
func (s *Store) IdempotencyRecord(ctx context.Context, accountID, operation, key string, now time.Time) (*skygate.IdempotencyRecord, error) {
	r, err := s.scanIdempotency(s.read.QueryRowContext(ctx, selectLiveIdempotency, accountID, operation, key, micros(now)))
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "get idempotency record", NotFound: idempotencyNotFound}, err)
	}
	return r, nil
}

// PurgeIdempotencyRecords implements skygate.BookingStore.
func (s *Store) PurgeIdempotencyRecords(ctx context.Context, before time.Time) (int, error) {
	res, err := s.write.ExecContext(ctx, purgeIdempotency, micros(before))
	if err != nil {
		return 0, interpret(sqlstore.Outcome{Op: "purge idempotency records"}, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, interpret(sqlstore.Outcome{Op: "purge idempotency records"}, err)
	}
	return int(n), nil
}

// idempotencyArgs returns the arguments of claimIdempotency for rec, whose times it
// first makes UTC, its fingerprint and body sealed. Callers make them before their
// transaction, so that sealing does not hold the single writer.
func (s *Store) idempotencyArgs(rec *skygate.IdempotencyRecord) ([]any, error) {
	rec.CreatedAt, rec.ExpiresAt = sqlstore.UTC(rec.CreatedAt), sqlstore.UTC(rec.ExpiresAt)
	fingerprint, body, err := sqlstore.SealIdempotency(s.sealer, rec)
	if err != nil {
		return nil, err
	}
	return []any{rec.AccountID, rec.Operation, rec.Key, fingerprint, rec.StatusCode, rec.ResourceID,
		body, micros(rec.CreatedAt), micros(rec.ExpiresAt)}, nil
}

// claimKey claims rec's key inside tx for the write it records (a booking, an eSIM
// order or top-up), args being idempotencyArgs(rec): it inserts rec, replacing a
// record of the key that has expired, or, when an unexpired record holds the key,
// returns that record and writes nothing.
func (s *Store) claimKey(ctx context.Context, tx *sql.Tx, rec *skygate.IdempotencyRecord, args []any) (*skygate.IdempotencyRecord, error) {
	res, err := tx.ExecContext(ctx, claimIdempotency, args...)
	if err != nil {
		return nil, err
	}
	if n, err := res.RowsAffected(); err != nil || n > 0 {
		return nil, err
	}
	return s.scanIdempotency(tx.QueryRowContext(ctx, selectIdempotency, rec.AccountID, rec.Operation, rec.Key))
}
