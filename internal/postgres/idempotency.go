package postgres

import (
	"context"
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
