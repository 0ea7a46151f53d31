package sqlstore

import (
	"context"
	"database/sql"
	"math"
	"time"

	"github.com/skygate/skygate"
)

// The maintenance of personal data at rest (sealed.go): its removal after the
// retention, and the sealing of rows written in clear. Both run across accounts, for
// the booking worker of every replica at once. On engines with concurrent writers each
// locks the rows it takes and skips rows another caller holds; the conditions of every
// UPDATE are rechecked on the row, so a row is changed once whoever gets to it.
var (
	erasePassengerData = `UPDATE bookings SET passenger_data = NULL, personal_data_removed_at = ?
		WHERE passenger_data IS NOT NULL AND id IN (SELECT id FROM bookings
			WHERE passenger_data IS NOT NULL AND service_date < ? ORDER BY service_date, id ` + limitArg
	qErasePassengerData       = newStmt(erasePassengerData + `)`)
	qErasePassengerDataLocked = newStmt(erasePassengerData + ` FOR UPDATE SKIP LOCKED)`)

	// A booking written in clear has neither its sealed passengers nor a removal
	// (the partial index bookings_passengers_unsealed).
	unsealedBookings = `SELECT id, account_id, passengers FROM bookings
		WHERE passenger_data IS NULL AND personal_data_removed_at IS NULL ORDER BY id ` + limitArg
	qUnsealedBookings       = newStmt(unsealedBookings)
	qUnsealedBookingsLocked = newStmt(unsealedBookings + ` FOR UPDATE SKIP LOCKED`)
	qSealBooking            = newStmt(`UPDATE bookings SET passengers = ?, passenger_data = ?
		WHERE account_id = ? AND id = ? AND passenger_data IS NULL AND personal_data_removed_at IS NULL`)

	unsealedRecords = `SELECT ` + idempotencyColumns + ` FROM idempotency_records
		WHERE NOT sealed ORDER BY account_id, operation, idem_key ` + limitArg
	qUnsealedRecords       = newStmt(unsealedRecords)
	qUnsealedRecordsLocked = newStmt(unsealedRecords + ` FOR UPDATE SKIP LOCKED`)
	// created_at tells the record read from one that replaced it since (an expired key
	// used again by an older release).
	qSealRecord = newStmt(`UPDATE idempotency_records SET fingerprint = ?, body = ?, sealed = TRUE
		WHERE account_id = ? AND operation = ? AND idem_key = ? AND NOT sealed AND created_at = ?`)
)

// sealBatch bounds the rows SealLegacyData seals in one transaction.
const sealBatch = 100

// ErasePassengerData implements skygate.BookingStore.
func (s *Store) ErasePassengerData(ctx context.Context, serviceDateBefore string, now time.Time, limit int) (int, error) {
	q := s.q(qErasePassengerData)
	if s.concurrentWriters() {
		q = s.q(qErasePassengerDataLocked)
	}
	n := int64(limit)
	if limit <= 0 {
		n = math.MaxInt64
	}
	res, err := s.write.ExecContext(ctx, q, s.time(now), serviceDateBefore, n)
	if err != nil {
		return 0, s.interpret(outcome{op: "erase passenger data"}, err)
	}
	erased, err := res.RowsAffected()
	if err != nil {
		return 0, s.interpret(outcome{op: "erase passenger data"}, err)
	}
	return int(erased), nil
}

// SealLegacyData implements skygate.BookingStore.
func (s *Store) SealLegacyData(ctx context.Context, limit int) (int, error) {
	if s.sealer == nil {
		return 0, errNoSealer
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
				return total, s.interpret(outcome{op: "seal legacy data"}, err)
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
// many it read (the ones a concurrent caller sealed first count too: they are done).
func (s *Store) sealBookings(ctx context.Context, tx *sql.Tx, n int) (int, error) {
	q := s.q(qUnsealedBookings)
	if s.concurrentWriters() {
		q = s.q(qUnsealedBookingsLocked)
	}
	rows, err := queryAll(ctx, tx, func(row scanner) (*skygate.Booking, error) {
		var b skygate.Booking
		return &b, row.Scan(&b.ID, &b.AccountID, passengersCol{&b.Passengers})
	}, q, n)
	if err != nil {
		return 0, err
	}
	for _, b := range rows {
		sealed, err := SealPassengers(s.sealer, b)
		if err != nil {
			return 0, err
		}
		names := string(skygate.AppendPassengersJSON(nil, skygate.PassengerNames(b.Passengers)))
		if _, err := tx.ExecContext(ctx, s.q(qSealBooking), names, sealed, b.AccountID, b.ID); err != nil {
			return 0, err
		}
	}
	return len(rows), nil
}

// sealRecords seals up to n idempotency records written in clear, inside tx, and
// returns how many it read.
func (s *Store) sealRecords(ctx context.Context, tx *sql.Tx, n int) (int, error) {
	q := s.q(qUnsealedRecords)
	if s.concurrentWriters() {
		q = s.q(qUnsealedRecordsLocked)
	}
	// Read in clear (sealed is false), so scanning opens nothing.
	recs, err := queryAll(ctx, tx, s.scanIdempotency, q, n)
	if err != nil {
		return 0, err
	}
	for _, rec := range recs {
		fingerprint, body, err := SealIdempotency(s.sealer, rec)
		if err != nil {
			return 0, err
		}
		if _, err := tx.ExecContext(ctx, s.q(qSealRecord), fingerprint, body,
			rec.AccountID, rec.Operation, rec.Key, s.time(rec.CreatedAt)); err != nil {
			return 0, err
		}
	}
	return len(recs), nil
}
