package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/skygate/skygate"
)

// SlotFull is the error of a booking whose places do not fit in its slot.
func SlotFull(b *skygate.Booking) error {
	return skygate.Errorf(skygate.CodeSlotFull, "the fast-track's slot starting %s has fewer than %d places left",
		UTC(b.Slot.Start).Format("2006-01-02T15:04Z"), b.Slot.Places)
}

// TakesPlaces reports whether creating b takes places in a slot: it names one and
// some of its passengers take a place.
func TakesPlaces(b *skygate.Booking) bool { return b.Slot != nil && b.Slot.Places > 0 }

// ReturnsPlaces reports whether the transition from before to after gives the
// places before holds back: a booking that ends unused (Expired or Canceled) from
// Pending, Issued or Confirmed. A Completed booking keeps them: its passengers came.
func ReturnsPlaces(before, after *skygate.Booking) bool {
	if !TakesPlaces(before) {
		return false
	}
	switch before.Status {
	case skygate.BookingPending, skygate.BookingIssued, skygate.BookingConfirmed:
	default:
		return false
	}
	return after.Status == skygate.BookingExpired || after.Status == skygate.BookingCanceled
}

// SlotSQL is an engine's statements of slot places:
//
//   - Take (fast_track_id, slot_start, places, capacity) adds the places to the slot only
//     when they fit its capacity (the admin's override, else the given one, read in the
//     same statement) and returns the places used after it; no row when they do not fit;
//   - Return (fast_track_id, slot_start, places) gives places back;
//   - Usage (fast_track_id, from, to) reads slot_start, used of the slots in use that
//     start in [from, to).
type SlotSQL struct {
	Take, Return, Usage string
}

// TakeSlot takes b.Slot's places inside tx, the transaction that creates b (the
// engines' takeSlot), or fails with CodeSlotFull when they do not fit.
func TakeSlot(ctx context.Context, db *DB, tx *Tx, q SlotSQL, b *skygate.Booking) error {
	if !TakesPlaces(b) {
		return nil
	}
	var used int
	err := tx.QueryRowContext(ctx, q.Take, b.FastTrackID, db.Time(UTC(b.Slot.Start)), b.Slot.Places, b.Slot.Capacity).Scan(&used)
	if errors.Is(err, sql.ErrNoRows) {
		return SlotFull(b)
	}
	return err
}

// ReturnSlot gives back, inside tx, the places of a booking that ends unused
// (ReturnsPlaces; the engines' returnSlot).
func ReturnSlot(ctx context.Context, db *DB, tx *Tx, q SlotSQL, before, after *skygate.Booking) error {
	if !ReturnsPlaces(before, after) {
		return nil
	}
	res, err := tx.ExecContext(ctx, q.Return, before.FastTrackID, db.Time(UTC(before.Slot.Start)), before.Slot.Places)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n != 1 {
		return fmt.Errorf("booking %s: its slot's usage row is missing", before.ID)
	}
	return nil
}

// SlotUsage is skygate.SlotStore's SlotUsage.
func SlotUsage(ctx context.Context, db *DB, q SlotSQL, fastTrackID string, from, to time.Time) (map[time.Time]int, error) {
	rows, err := db.Read.QueryContext(ctx, q.Usage, fastTrackID, db.Time(UTC(from)), db.Time(UTC(to)))
	if err != nil {
		return nil, db.Interpret(Outcome{Op: "slot usage"}, err)
	}
	defer func() { _ = rows.Close() }() // rows.Err reports what matters
	out := map[time.Time]int{}
	for rows.Next() {
		var (
			start time.Time
			used  int
		)
		if err := rows.Scan(timeCol{&start}, &used); err != nil {
			return nil, db.Interpret(Outcome{Op: "slot usage"}, err)
		}
		out[start] = used
	}
	if err := rows.Err(); err != nil {
		return nil, db.Interpret(Outcome{Op: "slot usage"}, err)
	}
	return out, nil
}
