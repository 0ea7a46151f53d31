package postgres

import (
	"context"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

var _ skygate.QuoteStore = (*Store)(nil)

// quoteSQL is the SQL of booking quotes (sqlstore.QuoteSQL). Every statement names
// the account.
var quoteSQL = sqlstore.QuoteSQL{
	Insert: `INSERT INTO booking_quotes (` + sqlstore.QuoteColumns + `)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
	Select: `SELECT ` + sqlstore.QuoteColumns + ` FROM booking_quotes WHERE account_id = $1 AND id = $2`,
	Use: `UPDATE booking_quotes SET used_by = $1, used_at = $2
		WHERE account_id = $3 AND id = $4 AND used_by IS NULL AND expires_at > $5 AND fingerprint = $6`,
}

// purgeQuotes deletes up to the second argument of the quotes that expired before
// the first, oldest first (booking_quotes_expires_at).
const purgeQuotes = `DELETE FROM booking_quotes WHERE id IN (
	SELECT id FROM booking_quotes WHERE expires_at < $1 ORDER BY expires_at LIMIT $2)`

// CreateQuote implements skygate.QuoteStore.
func (s *Store) CreateQuote(ctx context.Context, q *skygate.Quote) error {
	return sqlstore.CreateQuote(ctx, s.db, quoteSQL, q)
}

// Quote implements skygate.QuoteStore.
func (s *Store) Quote(ctx context.Context, accountID, quoteID string) (*skygate.Quote, error) {
	return sqlstore.Get(ctx, s.db, sqlstore.Outcome{Op: "get quote", NotFound: sqlstore.QuoteNotFound},
		sqlstore.ScanQuote, quoteSQL.Select, accountID, quoteID)
}

// PurgeQuotes implements skygate.QuoteStore.
func (s *Store) PurgeQuotes(ctx context.Context, before time.Time, limit int) (int, error) {
	return sqlstore.PurgeQuotes(ctx, s.db, purgeQuotes, before, limit)
}
