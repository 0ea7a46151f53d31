package sqlstore

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/skygate/skygate"
)

// What rows must not hold in clear rests sealed with the store's skygate.Sealer:
//
//   - bookings.passenger_data: the booking's passengers whole (encoding/json), while
//     the passengers column holds their names only. Every booking written by this
//     release has it until ErasePassengerData sets it NULL; a row without it and without
//     personal_data_removed_at was written in clear (SealLegacyData).
//   - idempotency_records.fingerprint and .body, with sealed true; a row with sealed
//     false was written in clear.
//
// The associated data of each value names its column and its row, so a value copied
// to another column or row does not open. None of it is ever compared in SQL.

// errNoSealer is the error of a store opened without a sealer.
var errNoSealer = errors.New("sqlstore: the store has no sealer")

// passengerDataAD is the associated data of a booking's passenger_data.
func passengerDataAD(accountID, bookingID string) []byte {
	return []byte("bookings.passenger_data\x00" + accountID + "\x00" + bookingID)
}

// idempotencyAD is the associated data of an idempotency record's column.
func idempotencyAD(column string, rec *skygate.IdempotencyRecord) []byte {
	return []byte("idempotency_records." + column + "\x00" + rec.AccountID + "\x00" + rec.Operation + "\x00" + rec.Key)
}

// sealPassengers returns the passenger_data column of b.
func sealPassengers(sealer skygate.Sealer, b *skygate.Booking) ([]byte, error) {
	if sealer == nil {
		return nil, errNoSealer
	}
	plain, err := json.Marshal(b.Passengers)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: encode passengers: %w", err)
	}
	return sealer.Seal(plain, passengerDataAD(b.AccountID, b.ID)), nil
}

// openPassengers sets b's passengers from its passenger_data column. Its errors name
// the booking, never the data.
func openPassengers(sealer skygate.Sealer, b *skygate.Booking, sealed []byte) error {
	if sealer == nil {
		return errNoSealer
	}
	plain, err := sealer.Open(sealed, passengerDataAD(b.AccountID, b.ID))
	if err != nil {
		return fmt.Errorf("sqlstore: booking %s: passenger data: %w", b.ID, err)
	}
	var ps []skygate.Passenger
	if err := json.Unmarshal(plain, &ps); err != nil {
		return fmt.Errorf("sqlstore: booking %s: passenger data does not decode", b.ID)
	}
	b.Passengers = ps
	return nil
}

// sealIdempotency returns the stored fingerprint and body of rec.
func sealIdempotency(sealer skygate.Sealer, rec *skygate.IdempotencyRecord) (fingerprint, body []byte, err error) {
	if sealer == nil {
		return nil, nil, errNoSealer
	}
	return sealer.Seal(rec.Fingerprint, idempotencyAD("fingerprint", rec)),
		sealer.Seal(rec.Body, idempotencyAD("body", rec)), nil
}

// openIdempotency replaces rec's sealed fingerprint and body with their plaintext.
func openIdempotency(sealer skygate.Sealer, rec *skygate.IdempotencyRecord) error {
	if sealer == nil {
		return errNoSealer
	}
	fp, err := sealer.Open(rec.Fingerprint, idempotencyAD("fingerprint", rec))
	if err != nil {
		return fmt.Errorf("sqlstore: idempotency record of %s: fingerprint: %w", rec.Operation, err)
	}
	body, err := sealer.Open(rec.Body, idempotencyAD("body", rec))
	if err != nil {
		return fmt.Errorf("sqlstore: idempotency record of %s: body: %w", rec.Operation, err)
	}
	rec.Fingerprint, rec.Body = NonNil(fp), NonNil(body)
	return nil
}
