package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/skygate/skygate"
)

// The flows of booking quotes (skygate.QuoteStore) and of the booking that locks one.

// QuoteNotFound is the public message of a missing quote, including one of another
// account.
const QuoteNotFound = "quote not found"

// QuoteColumns are the columns ScanQuote reads, in its order; an insert of a quote
// writes them all.
const QuoteColumns = `id, account_id, client_id, fast_track_id, fingerprint, price_amount,
	price_currency, cancellation_policy, scheduled_at, passenger_types, created_at,
	expires_at, used_by, used_at`

// QuoteSQL is an engine's statements of quotes. Insert takes QuoteColumns; Select
// (account_id, id) reads a quote in QuoteColumns; Use (booking id, used_at, account_id,
// id, now, fingerprint) marks the quote used by the booking when it is the account's,
// unused, unexpired at now and of the fingerprint, and changes no row otherwise.
type QuoteSQL struct {
	Insert, Select, Use string
}

// ScanQuote reads a quote in QuoteColumns.
func ScanQuote(row Scanner) (*skygate.Quote, error) {
	var (
		q      skygate.Quote
		usedBy sql.NullString
	)
	err := row.Scan(&q.ID, &q.AccountID, &q.ClientID, &q.FastTrackID, &q.Fingerprint, &q.Price.Amount,
		&q.Price.Currency, jsonCol{&q.CancellationPolicy}, &q.ScheduledAt, jsonCol{&q.PassengerTypes},
		timeCol{&q.CreatedAt}, timeCol{&q.ExpiresAt}, &usedBy, nullTimeCol{&q.UsedAt})
	if err != nil {
		return nil, err
	}
	q.UsedBy = usedBy.String
	return &q, nil
}

// CreateQuote is skygate.QuoteStore's CreateQuote.
func CreateQuote(ctx context.Context, db *DB, qs QuoteSQL, q *skygate.Quote) error {
	q.CreatedAt, q.ExpiresAt = UTC(q.CreatedAt), UTC(q.ExpiresAt)
	for i := range q.CancellationPolicy {
		q.CancellationPolicy[i].Until = UTC(q.CancellationPolicy[i].Until)
	}
	if q.CancellationPolicy == nil {
		q.CancellationPolicy = []skygate.CancellationTerm{}
	}
	policy, err := JSONText(q.CancellationPolicy)
	if err != nil {
		return err
	}
	types, err := JSONText(q.PassengerTypes)
	if err != nil {
		return err
	}
	var usedBy any
	if q.UsedBy != "" {
		usedBy = q.UsedBy
	}
	_, err = db.Write.ExecContext(ctx, qs.Insert, q.ID, q.AccountID, q.ClientID, q.FastTrackID, NonNil(q.Fingerprint),
		q.Price.Amount, q.Price.Currency, policy, q.ScheduledAt, types, db.Time(q.CreatedAt), db.Time(q.ExpiresAt),
		usedBy, db.NullTime(q.UsedAt))
	return db.Interpret(Outcome{Op: "create quote", Conflict: "a quote with this id already exists", NotFound: AccountNotFound}, err)
}

// PurgeQuotes is skygate.QuoteStore's PurgeQuotes with purge, which deletes up to its
// second argument of the quotes that expired before its first. A limit below 1 purges
// nothing.
func PurgeQuotes(ctx context.Context, db *DB, purge string, before time.Time, limit int) (int, error) {
	if limit < 1 {
		return 0, nil
	}
	n, err := Affected(ctx, db, "purge quotes", purge, db.Time(UTC(before)), limit)
	return int(n), err
}

// UseQuote marks b.QuoteID used by b inside tx, the transaction that creates b (at
// b.CreatedAt), when b names a quote. The statement that marks it re-checks what the
// service checked before (the quote is the account's, unused, unexpired and of b's
// facts), so that of concurrent bookings naming one quote exactly one locks it; the
// others get the error skygate.Quote.CheckUse gives, or skygate.QuoteNotFound.
func UseQuote(ctx context.Context, db *DB, qs QuoteSQL, tx *Tx, b *skygate.Booking) error {
	if b.QuoteID == "" {
		return nil
	}
	at := db.Time(b.CreatedAt)
	res, err := tx.ExecContext(ctx, qs.Use, b.ID, at, b.AccountID, b.QuoteID, at, skygate.BookingQuoteFingerprint(b))
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return err
	}
	q, err := ScanQuote(tx.QueryRowContext(ctx, qs.Select, b.AccountID, b.QuoteID))
	if errors.Is(err, sql.ErrNoRows) {
		return skygate.QuoteNotFound()
	}
	if err != nil {
		return err
	}
	if err := q.CheckUse(b, b.CreatedAt); err != nil {
		return err
	}
	return fmt.Errorf("quote %s: usable but not marked used", q.ID)
}
