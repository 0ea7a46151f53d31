package sqlite

import (
	"context"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

var _ skygate.SlotStore = (*Store)(nil)

// slotSQL are the statements of slot places (sqlstore.SlotSQL).
var slotSQL = sqlstore.SlotSQL{
	// Take adds a booking's places (?3) to its slot only when they fit: the
	// capacity is the admin's override or else the catalog's (?4), read in the same
	// statement. The single writer runs it alone, so no slot is ever oversold. No row
	// returned: the slot is full. (The WHERE of the SELECT also keeps SQLite from
	// reading ON CONFLICT as a join's.)
	Take: `INSERT INTO fast_track_slot_usage AS u (fast_track_id, slot_start, used)
		SELECT ?1, ?2, ?3
		WHERE ?3 <= COALESCE((SELECT capacity FROM fast_track_capacities WHERE fast_track_id = ?1), ?4)
		ON CONFLICT (fast_track_id, slot_start) DO UPDATE SET used = u.used + excluded.used
		WHERE u.used + excluded.used <= COALESCE(
			(SELECT capacity FROM fast_track_capacities WHERE fast_track_id = ?1), ?4)
		RETURNING used`,
	Return: `UPDATE fast_track_slot_usage SET used = used - ?3
		WHERE fast_track_id = ?1 AND slot_start = ?2`,
	Usage: `SELECT slot_start, used FROM fast_track_slot_usage
		WHERE fast_track_id = ? AND slot_start >= ? AND slot_start < ? AND used > 0`,
}

// takeSlot takes b.Slot's places (sqlstore.TakeSlot).
func (s *Store) takeSlot(ctx context.Context, tx *sqlstore.Tx, b *skygate.Booking) error {
	return sqlstore.TakeSlot(ctx, s.db, tx, slotSQL, b)
}

// returnSlot gives back the places of a booking that ends unused (sqlstore.ReturnSlot).
func (s *Store) returnSlot(ctx context.Context, tx *sqlstore.Tx, before, after *skygate.Booking) error {
	return sqlstore.ReturnSlot(ctx, s.db, tx, slotSQL, before, after)
}

// SlotUsage implements skygate.SlotStore.
func (s *Store) SlotUsage(ctx context.Context, fastTrackID string, from, to time.Time) (map[time.Time]int, error) {
	return sqlstore.SlotUsage(ctx, s.db, slotSQL, fastTrackID, from, to)
}
