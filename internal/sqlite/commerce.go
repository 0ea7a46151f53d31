package sqlite

import (
	"context"
	"slices"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

// bookingCreated takes, inside the transaction that creates b (a booking with
// commerce, sqlstore.HasCommerce), what b needs: its quote (used once), its price from
// the account's balance (a reservation) and its places in its slot. An error aborts
// the creation: nothing of it is kept. The slot, shared by every account, is taken
// last so that its row is locked for the shortest time.
func (s *Store) bookingCreated(ctx context.Context, tx *sqlstore.Tx, b *skygate.Booking) error {
	if err := s.useQuote(ctx, tx, b); err != nil {
		return err
	}
	if err := s.reserveFunds(ctx, tx, b); err != nil {
		return err
	}
	return s.takeSlot(ctx, tx, b)
}

// bookingsChanged moves, inside the transaction of the transitions of before to
// after (element by element), what each booking's new status needs: the money
// (release, charge, refund) and the places of its slot (given back when the booking
// ends unused). Locks are taken in one global order, every balance (by account and
// currency) before every slot (by fast-track and start), as bookingCreated takes
// them, so that a batch of claims and concurrent creations or cancellations never
// deadlock.
func (s *Store) bookingsChanged(ctx context.Context, tx *sqlstore.Tx, before, after []*skygate.Booking) error {
	var changed []int
	for i, b := range before {
		if sqlstore.HasCommerce(b) && b.Status != after[i].Status {
			changed = append(changed, i)
		}
	}
	slices.SortFunc(changed, func(i, j int) int { return sqlstore.CompareBalances(before[i], before[j]) })
	for _, i := range changed {
		if err := s.moveFunds(ctx, tx, before[i], after[i]); err != nil {
			return err
		}
	}
	slices.SortFunc(changed, func(i, j int) int { return sqlstore.CompareSlots(before[i], before[j]) })
	for _, i := range changed {
		if err := s.returnSlot(ctx, tx, before[i], after[i]); err != nil {
			return err
		}
	}
	return nil
}
