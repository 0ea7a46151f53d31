package sqlite

import (
	"context"
	"database/sql"
	"math"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

// The maintenance of personal data at rest: its removal after the retention, and the
// sealing of rows written in clear. Both run across accounts; the single writer runs
// one at a time, and the conditions of every UPDATE are rechecked on the row, so a
// row is changed once whoever gets to it.
const (
	erasePassengerData = `UPDATE bookings SET passenger_data = NULL, personal_data_removed_at = ?
		WHERE passenger_data IS NOT NULL AND id IN (SELECT id FROM bookings
			WHERE passenger_data IS NOT NULL AND service_date < ? ORDER BY service_date, id
			LIMIT ?)`

	// A booking written in clear has neither its sealed passengers nor a removal
	// (the partial index bookings_passengers_unsealed).
	selectUnsealedBookings = `SELECT id, account_id, passengers FROM bookings
		WHERE passenger_data IS NULL AND personal_data_removed_at IS NULL ORDER BY id
		LIMIT ?`
	sealBooking = `UPDATE bookings SET passengers = ?, passenger_data = ?
		WHERE account_id = ? AND id = ? AND passenger_data IS NULL AND personal_data_removed_at IS NULL`

	selectUnsealedRecords = `SELECT account_id, operation, idem_key, fingerprint, status_code,
		resource_id, body, created_at, expires_at, sealed
		FROM idempotency_records WHERE NOT sealed ORDER BY account_id, operation, idem_key
		LIMIT ?`
	// created_at tells the record read from one that replaced it since (an expired key
	// used again by an older release).
	sealRecord = `UPDATE idempotency_records SET fingerprint = ?, body = ?, sealed = TRUE
		WHERE account_id = ? AND operation = ? AND idem_key = ? AND NOT sealed AND created_at = ?`
)

// sealBatch bounds the rows SealLegacyData seals in one transaction.
const sealBatch = 100

// ErasePassengerData implements skygate.BookingStore.
func (s *Store) ErasePassengerData(ctx context.Context, serviceDateBefore string, now time.Time, limit int) (int, error) {
	n := int64(limit)
	if limit <= 0 {
		n = math.MaxInt64
	}
	res, err := s.write.ExecContext(ctx, erasePassengerData, micros(now), serviceDateBefore, n)
	if err != nil {
		return 0, interpret(sqlstore.Outcome{Op: "erase passenger data"}, err)
	}
	erased, err := res.RowsAffected()
	if err != nil {
		return 0, interpret(sqlstore.Outcome{Op: "erase passenger data"}, err)
	}
	return int(erased), nil
}

// SealLegacyData implements skygate.BookingStore.
func (s *Store) SealLegacyData(ctx context.Context, limit int) (int, error) {
	if s.sealer == nil {
		return 0, sqlstore.ErrNoSealer
	}
	total := 0
	for _, table := range []func(ctx context.Context, tx *sql.Tx, n int) (int, error){s.sealBookings, s.sealRecords} {
		for done := 0; limit <= 0 || done < limit; {
			n := sealBatch
			if limit > 0 {
				n = min(n, limit-done)
			}
			sealed := 0
			err := s.inTx(ctx, func(tx *sql.Tx) error {
				var err error
				sealed, err = table(ctx, tx, n)
				return err
			})
			if err != nil {
				return total, interpret(sqlstore.Outcome{Op: "seal legacy data"}, err)
			}
			done += sealed
			total += sealed
			if sealed < n {
				break
			}
		}
	}
	return total, nil
}

// sealBookings seals up to n bookings written in clear, inside tx, and returns how
// many it read.
func (s *Store) sealBookings(ctx context.Context, tx *sql.Tx, n int) (int, error) {
	rows, err := sqlstore.QueryAll(ctx, tx, func(row sqlstore.Scanner) (*skygate.Booking, error) {
		var b skygate.Booking
		return &b, row.Scan(&b.ID, &b.AccountID, sqlstore.PassengersCol(&b.Passengers))
	}, selectUnsealedBookings, n)
	if err != nil {
		return 0, err
	}
	for _, b := range rows {
		sealed, err := sqlstore.SealPassengers(s.sealer, b)
		if err != nil {
			return 0, err
		}
		names, err := sqlstore.JSONText(skygate.PassengerNames(b.Passengers))
		if err != nil {
			return 0, err
		}
		if _, err := tx.ExecContext(ctx, sealBooking, names, sealed, b.AccountID, b.ID); err != nil {
			return 0, err
		}
	}
	return len(rows), nil
}

// sealRecords seals up to n idempotency records written in clear, inside tx, and
// returns how many it read.
func (s *Store) sealRecords(ctx context.Context, tx *sql.Tx, n int) (int, error) {
	// Read in clear (sealed is false), so scanning opens nothing.
	recs, err := sqlstore.QueryAll(ctx, tx, s.scanIdempotency, selectUnsealedRecords, n)
	if err != nil {
		return 0, err
	}
	for _, rec := range recs {
		fingerprint, body, err := sqlstore.SealIdempotency(s.sealer, rec)
		if err != nil {
			return 0, err
		}
		if _, err := tx.ExecContext(ctx, sealRecord, fingerprint, body,
			rec.AccountID, rec.Operation, rec.Key, micros(rec.CreatedAt)); err != nil {
			return 0, err
		}
	}
	return len(recs), nil
}
