package sqlite

import (
	"context"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

// useQuote marks b.QuoteID, when b names one, used by b inside tx, the transaction
// that creates b: of concurrent bookings naming one quote exactly one locks it
// (sqlstore.UseQuote).
func (s *Store) useQuote(ctx context.Context, tx *sqlstore.Tx, b *skygate.Booking) error {
	return sqlstore.UseQuote(ctx, s.db, quoteSQL, tx, b)
}
