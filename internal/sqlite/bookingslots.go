package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

var _ skygate.SlotStore = (*Store)(nil)

const (
	// takeSlot adds a booking's places (?3) to its slot only when they fit: the
	// capacity is the admin's override or else the catalog's (?4), read in the same
	// statement. The single writer runs it alone, so no slot is ever oversold. No row
	// returned: the slot is full. (The WHERE of the SELECT also keeps SQLite from
	// reading ON CONFLICT as a join's.)
	takeSlot = `INSERT INTO fast_track_slot_usage AS u (fast_track_id, slot_start, used)
		SELECT ?1, ?2, ?3
		WHERE ?3 <= COALESCE((SELECT capacity FROM fast_track_capacities WHERE fast_track_id = ?1), ?4)
		ON CONFLICT (fast_track_id, slot_start) DO UPDATE SET used = u.used + excluded.used
		WHERE u.used + excluded.used <= COALESCE(
			(SELECT capacity FROM fast_track_capacities WHERE fast_track_id = ?1), ?4)
		RETURNING used`
	returnSlot = `UPDATE fast_track_slot_usage SET used = used - ?3
		WHERE fast_track_id = ?1 AND slot_start = ?2`
	selectSlotUsage = `SELECT slot_start, used FROM fast_track_slot_usage
		WHERE fast_track_id = ? AND slot_start >= ? AND slot_start < ? AND used > 0`
	selectCapacityOverride = `SELECT capacity FROM fast_track_capacities WHERE fast_track_id = ?`
)

// takeSlot takes b.Slot's places, or fails with CodeSlotFull when they do not fit.
func (s *Store) takeSlot(ctx context.Context, tx *sqlstore.Tx, b *skygate.Booking) error {
	if !sqlstore.TakesPlaces(b) {
		return nil
	}
	var used int
	err := tx.QueryRowContext(ctx, takeSlot, b.FastTrackID, b.Slot.Start.UnixMicro(), b.Slot.Places, b.Slot.Capacity).Scan(&used)
	if errors.Is(err, sql.ErrNoRows) {
		return sqlstore.SlotFull(b)
	}
	return err
}

// returnSlot gives back the places of a booking that ends unused
// (sqlstore.ReturnsPlaces).
func (s *Store) returnSlot(ctx context.Context, tx *sqlstore.Tx, before, after *skygate.Booking) error {
	if !sqlstore.ReturnsPlaces(before, after) {
		return nil
	}
	res, err := tx.ExecContext(ctx, returnSlot, before.FastTrackID, before.Slot.Start.UnixMicro(), before.Slot.Places)
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

// SlotUsage implements skygate.SlotStore.
func (s *Store) SlotUsage(ctx context.Context, fastTrackID string, from, to time.Time) (map[time.Time]int, error) {
	rows, err := s.read.QueryContext(ctx, selectSlotUsage, fastTrackID, from.UnixMicro(), to.UnixMicro())
	if err != nil {
		return nil, s.db.Interpret(sqlstore.Outcome{Op: "slot usage"}, err)
	}
	defer func() { _ = rows.Close() }() // rows.Err reports what matters
	out := map[time.Time]int{}
	for rows.Next() {
		var start int64
		var used int
		if err := rows.Scan(&start, &used); err != nil {
			return nil, err
		}
		out[time.UnixMicro(start).UTC()] = used
	}
	return out, rows.Err()
}

// FastTrackCapacityOverride implements skygate.SlotStore.
func (s *Store) FastTrackCapacityOverride(ctx context.Context, fastTrackID string) (int, bool, error) {
	var capacity int
	err := s.read.QueryRowContext(ctx, selectCapacityOverride, fastTrackID).Scan(&capacity)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, s.db.Interpret(sqlstore.Outcome{Op: "capacity override"}, err)
	}
	return capacity, true, nil
}
