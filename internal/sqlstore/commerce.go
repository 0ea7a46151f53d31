package sqlstore

import (
	"context"
	"slices"

	"github.com/skygate/skygate"
)

// Commerce is an engine's steps of a booking's commercial side, each run inside the
// transaction that creates or changes the booking: its quote (used once), its money
// (a reservation at create; release, charge or refund later) and its slot places.
type Commerce struct {
	UseQuote, ReserveFunds, TakeSlot func(ctx context.Context, tx *Tx, b *skygate.Booking) error
	MoveFunds, ReturnSlot            func(ctx context.Context, tx *Tx, before, after *skygate.Booking) error
}

// Created takes, inside tx, the transaction that creates b (a booking with commerce,
// HasCommerce), what b needs: its quote, its price from the account's balance and its
// places in its slot. An error aborts the creation: nothing of it is kept. The slot,
// shared by every account, is taken last so that its row is locked for the shortest
// time.
func (c Commerce) Created(ctx context.Context, tx *Tx, b *skygate.Booking) error {
	if err := c.UseQuote(ctx, tx, b); err != nil {
		return err
	}
	if err := c.ReserveFunds(ctx, tx, b); err != nil {
		return err
	}
	return c.TakeSlot(ctx, tx, b)
}

// Changed moves, inside tx, the transaction of the transitions of before to after
// (element by element), what each booking's new status needs: the money (release,
// charge, refund) and the places of its slot (given back when the booking ends
// unused). Locks are taken in one global order, every balance (by account and
// currency) before every slot (by fast-track and start), as Created takes them, so
// that a batch of claims and concurrent creations or cancellations never deadlock.
func (c Commerce) Changed(ctx context.Context, tx *Tx, before, after []*skygate.Booking) error {
	var changed []int
	for i, b := range before {
		if HasCommerce(b) && b.Status != after[i].Status {
			changed = append(changed, i)
		}
	}
	slices.SortFunc(changed, func(i, j int) int { return CompareBalances(before[i], before[j]) })
	for _, i := range changed {
		if err := c.MoveFunds(ctx, tx, before[i], after[i]); err != nil {
			return err
		}
	}
	slices.SortFunc(changed, func(i, j int) int { return CompareSlots(before[i], before[j]) })
	for _, i := range changed {
		if err := c.ReturnSlot(ctx, tx, before[i], after[i]); err != nil {
			return err
		}
	}
	return nil
}
