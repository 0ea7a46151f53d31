package sqlstore

import (
	"context"
	"math"
	"time"

	"github.com/skygate/skygate"
)

// The maintenance of personal data at rest: its removal after the retention, and the
// sealing of rows written in clear. The conditions of every UPDATE are rechecked on
// the row, so a row is changed once whoever gets to it.

// sealBatch bounds the rows SealLegacyData seals in one transaction.
const sealBatch = 100

// ErasePassengerData is skygate.BookingStore's ErasePassengerData with erase (now,
// service date bound, limit).
func ErasePassengerData(ctx context.Context, db *DB, erase, serviceDateBefore string, now time.Time, limit int) (int, error) {
	n := int64(limit)
	if limit <= 0 {
		n = math.MaxInt64
	}
	erased, err := Affected(ctx, db, "erase passenger data", erase, db.Time(now), serviceDateBefore, n)
	return int(erased), err
}

// SealLegacyData is skygate.BookingStore's SealLegacyData: bookings (limit) reads
// id, account_id, passengers of bookings written in clear and sealBooking (names,
// sealed passengers, account_id, id) seals one; records (limit) reads idempotency
// records written in clear and sealRecord (fingerprint, body, account_id, operation,
// idem_key, created_at) seals one. Each batch is a transaction, bookings first.
func SealLegacyData(ctx context.Context, db *DB, bookings, sealBooking, records, sealRecord string, limit int) (int, error) {
	if db.Sealer == nil {
		return 0, errNoSealer
	}
	sealBookings := func(ctx context.Context, tx *Tx, n int) (int, error) {
		rows, err := QueryAll(ctx, tx, func(row Scanner) (*skygate.Booking, error) {
			var b skygate.Booking
			return &b, row.Scan(&b.ID, &b.AccountID, passengersCol{&b.Passengers})
		}, bookings, n)
		if err != nil {
			return 0, err
		}
		for _, b := range rows {
			sealed, err := sealPassengers(db.Sealer, b)
			if err != nil {
				return 0, err
			}
			names, err := JSONText(skygate.PassengerNames(b.Passengers))
			if err != nil {
				return 0, err
			}
			if _, err := tx.ExecContext(ctx, sealBooking, names, sealed, b.AccountID, b.ID); err != nil {
				return 0, err
			}
		}
		return len(rows), nil
	}
	sealRecords := func(ctx context.Context, tx *Tx, n int) (int, error) {
		// Read in clear (sealed is false), so scanning opens nothing.
		recs, err := QueryAll(ctx, tx, db.ScanIdempotency, records, n)
		if err != nil {
			return 0, err
		}
		for _, rec := range recs {
			fingerprint, body, err := sealIdempotency(db.Sealer, rec)
			if err != nil {
				return 0, err
			}
			if _, err := tx.ExecContext(ctx, sealRecord, fingerprint, body,
				rec.AccountID, rec.Operation, rec.Key, db.Time(rec.CreatedAt)); err != nil {
				return 0, err
			}
		}
		return len(recs), nil
	}
	total := 0
	for _, table := range []func(ctx context.Context, tx *Tx, n int) (int, error){sealBookings, sealRecords} {
		sealed, err := inBatches(limit, sealBatch, func(n int) (sealed int, err error) {
			err = db.InTx(ctx, func(tx *Tx) (err error) {
				sealed, err = table(ctx, tx, n)
				return err
			})
			return sealed, err
		})
		total += sealed
		if err != nil {
			return total, db.Interpret(Outcome{Op: "seal legacy data"}, err)
		}
	}
	return total, nil
}
