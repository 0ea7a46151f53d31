package postgres

import (
	"context"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

// useQuote marks b.QuoteID used by b. SEAM: the quotes helper implements it.
func (s *Store) useQuote(ctx context.Context, tx *sqlstore.Tx, b *skygate.Booking) error {
	return nil
}
