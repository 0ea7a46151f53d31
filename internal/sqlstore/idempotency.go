package sqlstore

import (
	"context"
	"time"

	"github.com/skygate/skygate"
)

// idempotencyNotFound is the public message of a missing idempotency record.
const idempotencyNotFound = "idempotency key not found"

// IdempotencyRecord is skygate.BookingStore's IdempotencyRecord with live, which reads
// the record of account_id, operation, idem_key that expires after the fourth argument.
func IdempotencyRecord(ctx context.Context, db *DB, live, accountID, operation, key string, now time.Time) (*skygate.IdempotencyRecord, error) {
	return Get(ctx, db, Outcome{Op: "get idempotency record", NotFound: idempotencyNotFound},
		db.ScanIdempotency, live, accountID, operation, key, db.Time(now))
}

// PurgeIdempotencyRecords is skygate.BookingStore's PurgeIdempotencyRecords with
// purge, which deletes the records that expired before its argument.
func PurgeIdempotencyRecords(ctx context.Context, db *DB, purge string, before time.Time) (int, error) {
	n, err := Affected(ctx, db, "purge idempotency records", purge, db.Time(before))
	return int(n), err
}

// ScanIdempotency reads a record as scanIdempotency does, with db's sealer.
func (db *DB) ScanIdempotency(row Scanner) (*skygate.IdempotencyRecord, error) {
	return scanIdempotency(db.Sealer, row)
}

// IdempotencyArgs returns the arguments of account_id, operation, idem_key,
// fingerprint, status_code, resource_id, body, created_at, expires_at for rec, whose
// times it first makes UTC, its fingerprint and body sealed. Callers make them before
// their transaction, so that sealing does not hold it.
func IdempotencyArgs(db *DB, rec *skygate.IdempotencyRecord) ([]any, error) {
	rec.CreatedAt, rec.ExpiresAt = UTC(rec.CreatedAt), UTC(rec.ExpiresAt)
	fingerprint, body, err := sealIdempotency(db.Sealer, rec)
	if err != nil {
		return nil, err
	}
	return []any{rec.AccountID, rec.Operation, rec.Key, fingerprint, rec.StatusCode, rec.ResourceID,
		body, db.Time(rec.CreatedAt), db.Time(rec.ExpiresAt)}, nil
}

// KeySQL is an engine's statements of an idempotency key's claim: Claim (the
// arguments of IdempotencyArgs) inserts a sealed record, replacing one that has
// expired by the new one's creation, and changes no row when a live record holds the
// key; Record (account_id, operation, idem_key) reads the record that holds it.
type KeySQL struct {
	Claim, Record string
}

// ClaimKey claims rec's key inside tx for the write it records, args being
// IdempotencyArgs(rec): it inserts rec, replacing a record of the key that has
// expired, or, when an unexpired record holds the key, returns that record and writes
// nothing.
func ClaimKey(ctx context.Context, db *DB, q KeySQL, tx *Tx, rec *skygate.IdempotencyRecord, args []any) (*skygate.IdempotencyRecord, error) {
	res, err := tx.ExecContext(ctx, q.Claim, args...)
	if err != nil {
		return nil, err
	}
	if n, err := res.RowsAffected(); err != nil || n > 0 {
		return nil, err
	}
	return db.ScanIdempotency(tx.QueryRowContext(ctx, q.Record, rec.AccountID, rec.Operation, rec.Key))
}
