package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/skygate/skygate"
)

// idempotencyColumns' fingerprint and body are sealed when sealed is true (sealed.go).
const idempotencyColumns = `account_id, operation, idem_key, fingerprint, status_code, resource_id,
	body, created_at, expires_at, sealed`

// insertIdempotency claims a key: qInsertIdempotency, and the first part of
// createBookingSQL.
//
// ON CONFLICT makes the key the arbiter: on PostgreSQL it waits for a concurrent
// transaction that inserted the same key and then writes nothing, so a concurrent
// duplicate never gets past this statement; the rows it changed say who won (one:
// this transaction holds the key; none: a live record does). A record that has
// expired by the new one's creation is replaced in the same statement. Unlike DO
// NOTHING, DO UPDATE locks the conflicting row on PostgreSQL even when its WHERE
// is false, so replays of one key queue behind each other's short transactions.
const insertIdempotency = `INSERT INTO idempotency_records (` + idempotencyColumns + `)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (account_id, operation, idem_key) DO UPDATE SET
			fingerprint = excluded.fingerprint, status_code = excluded.status_code,
			resource_id = excluded.resource_id, body = excluded.body,
			created_at = excluded.created_at, expires_at = excluded.expires_at,
			sealed = excluded.sealed
		WHERE idempotency_records.expires_at <= excluded.created_at`

var (
	qInsertIdempotency = newStmt(insertIdempotency)
	qIdempotency       = newStmt(`SELECT ` + idempotencyColumns + ` FROM idempotency_records
		WHERE account_id = ? AND operation = ? AND idem_key = ?`)
	qLiveIdempotency = newStmt(`SELECT ` + idempotencyColumns + ` FROM idempotency_records
		WHERE account_id = ? AND operation = ? AND idem_key = ? AND expires_at > ?`)
	qPurgeIdempotency = newStmt(`DELETE FROM idempotency_records WHERE expires_at < ?`)
)

const idempotencyNotFound = "idempotency key not found"

// scanIdempotency reads one row of idempotencyColumns, its fingerprint and body opened.
func (s *Store) scanIdempotency(row scanner) (*skygate.IdempotencyRecord, error) {
	return ScanIdempotency(s.sealer, row)
}

// ScanIdempotency reads account_id, operation, idem_key, fingerprint, status_code,
// resource_id, body, created_at, expires_at, sealed, opening a sealed fingerprint and
// body with sealer.
func ScanIdempotency(sealer skygate.Sealer, row Scanner) (*skygate.IdempotencyRecord, error) {
	var (
		r      skygate.IdempotencyRecord
		sealed bool
	)
	err := row.Scan(&r.AccountID, &r.Operation, &r.Key, &r.Fingerprint, &r.StatusCode, &r.ResourceID,
		&r.Body, timeCol{&r.CreatedAt}, timeCol{&r.ExpiresAt}, &sealed)
	if err != nil {
		return nil, err
	}
	if sealed {
		if err := OpenIdempotency(sealer, &r); err != nil {
			return nil, err
		}
	}
	return &r, nil
}

// CreateBooking implements skygate.BookingStore. rec.CreatedAt is the "now" against
// which an existing record of the key counts as expired.
func (s *Store) CreateBooking(ctx context.Context, rec *skygate.IdempotencyRecord, b *skygate.Booking, events []*skygate.Event) (*skygate.IdempotencyRecord, error) {
	normaliseBooking(b)
	row, err := s.bookingRow(b)
	if err != nil {
		return nil, s.interpret(outcome{op: "create booking"}, err)
	}
	recRow, err := s.idempotencyRow(rec)
	if err != nil {
		return nil, s.interpret(outcome{op: "create booking"}, err)
	}
	var replay *skygate.IdempotencyRecord
	if s.d.WritableCTE && len(events) <= maxEventsAtOnce {
		replay, err = s.createBookingAtOnce(ctx, rec, recRow, row, events)
	} else {
		err = s.inTx(ctx, func(tx *sql.Tx) error {
			var err error
			if replay, err = s.claimKey(ctx, tx, rec, recRow); err != nil || replay != nil {
				// The key is taken: answer with the stored record and write nothing.
				return err
			}
			if _, err := tx.ExecContext(ctx, s.q(qInsertBooking), row...); err != nil {
				return err
			}
			return s.insertEvents(ctx, tx, events)
		})
	}
	if err != nil {
		return nil, s.interpret(outcome{
			op:       "create booking",
			conflict: "a booking with this id already exists",
			notFound: accountNotFound,
		}, err)
	}
	return replay, nil
}

// claimIdempotencyKey claims rec's key inside tx for the write it records (a booking, an
// eSIM order or top-up): it inserts rec, replacing a record of the key that has
// expired, or, when an unexpired record holds the key (on PostgreSQL after waiting for
// a concurrent holder to commit), returns that record and writes nothing.
func (s *Store) claimIdempotencyKey(ctx context.Context, tx *sql.Tx, rec *skygate.IdempotencyRecord) (*skygate.IdempotencyRecord, error) {
	row, err := s.idempotencyRow(rec)
	if err != nil {
		return nil, err
	}
	return s.claimKey(ctx, tx, rec, row)
}

// claimKey is claimIdempotencyKey with rec's row (idempotencyRow) made already.
func (s *Store) claimKey(ctx context.Context, tx *sql.Tx, rec *skygate.IdempotencyRecord, row []any) (*skygate.IdempotencyRecord, error) {
	res, err := tx.ExecContext(ctx, s.q(qInsertIdempotency), row...)
	if err != nil {
		return nil, err
	}
	if n, err := res.RowsAffected(); err != nil || n > 0 {
		return nil, err
	}
	return s.scanIdempotency(tx.QueryRowContext(ctx, s.q(qIdempotency), rec.AccountID, rec.Operation, rec.Key))
}

// idempotencyRow returns the arguments of insertIdempotency (idempotencyColumns) for
// rec, whose times it first makes UTC: its fingerprint and body sealed.
func (s *Store) idempotencyRow(rec *skygate.IdempotencyRecord) ([]any, error) {
	rec.CreatedAt, rec.ExpiresAt = utc(rec.CreatedAt), utc(rec.ExpiresAt)
	fingerprint, body, err := SealIdempotency(s.sealer, rec)
	if err != nil {
		return nil, err
	}
	return []any{rec.AccountID, rec.Operation, rec.Key, fingerprint, rec.StatusCode, rec.ResourceID,
		body, s.time(rec.CreatedAt), s.time(rec.ExpiresAt), true}, nil
}

// IdempotencyRecord implements skygate.BookingStore.
func (s *Store) IdempotencyRecord(ctx context.Context, accountID, operation, key string, now time.Time) (*skygate.IdempotencyRecord, error) {
	r, err := s.scanIdempotency(s.read.QueryRowContext(ctx, s.q(qLiveIdempotency),
		accountID, operation, key, s.time(now)))
	if err != nil {
		return nil, s.interpret(outcome{op: "get idempotency record", notFound: idempotencyNotFound}, err)
	}
	return r, nil
}

// PurgeIdempotencyRecords implements skygate.BookingStore.
func (s *Store) PurgeIdempotencyRecords(ctx context.Context, before time.Time) (int, error) {
	res, err := s.write.ExecContext(ctx, s.q(qPurgeIdempotency), s.time(before))
	if err != nil {
		return 0, s.interpret(outcome{op: "purge idempotency records"}, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, s.interpret(outcome{op: "purge idempotency records"}, err)
	}
	return int(n), nil
}
