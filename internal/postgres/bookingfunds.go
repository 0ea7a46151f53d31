package postgres

import (
	"context"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

// reserveFunds reserves b.Price. SEAM: the ledger helper implements it.
func (s *Store) reserveFunds(ctx context.Context, tx *sqlstore.Tx, b *skygate.Booking) error {
	return nil
}

// moveFunds moves the money of a transition. SEAM: the ledger helper implements it.
func (s *Store) moveFunds(ctx context.Context, tx *sqlstore.Tx, before, after *skygate.Booking) error {
	return nil
}
