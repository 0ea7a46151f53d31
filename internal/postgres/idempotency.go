package postgres

import (
	"context"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

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
