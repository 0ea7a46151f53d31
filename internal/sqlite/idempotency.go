package sqlite

import (
	"context"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

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

// keySQL is the SQL of an idempotency key's claim (sqlstore.KeySQL).
var keySQL = sqlstore.KeySQL{Claim: claimIdempotency, Record: selectIdempotency}

// IdempotencyRecord implements skygate.BookingStore.
func (s *Store) IdempotencyRecord(ctx context.Context, accountID, operation, key string, now time.Time) (*skygate.IdempotencyRecord, error) {
	return sqlstore.IdempotencyRecord(ctx, s.db, selectLiveIdempotency, accountID, operation, key, now)
}

// PurgeIdempotencyRecords implements skygate.BookingStore.
func (s *Store) PurgeIdempotencyRecords(ctx context.Context, before time.Time) (int, error) {
	return sqlstore.PurgeIdempotencyRecords(ctx, s.db, purgeIdempotency, before)
}
