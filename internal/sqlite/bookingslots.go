package sqlite

import (
	"context"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

// takeSlot takes b.Slot's places. SEAM: the slots helper implements it.
func (s *Store) takeSlot(ctx context.Context, tx *sqlstore.Tx, b *skygate.Booking) error {
	return nil
}

// returnSlot gives back the places of a booking that ends. SEAM: the slots helper
// implements it.
func (s *Store) returnSlot(ctx context.Context, tx *sqlstore.Tx, before, after *skygate.Booking) error {
	return nil
}
