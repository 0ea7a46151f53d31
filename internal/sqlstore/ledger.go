package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/skygate/skygate"
)

// The flows of a booking's money on the account's ledger (skygate.BookingLedgerMoves),
// the low-balance event of a debit, and the billing settings.

// LedgerSQL is an engine's statements of a booking's money, each run inside the
// transaction that creates or changes the booking:
//
//   - Reserve (price, time, account_id, currency) lowers the available amount by price
//     and raises reserved only when the amount covers it (a conditional update under
//     the balance row's lock, so concurrent creates never take it below zero), and
//     returns the amount after it and the account's threshold in the currency (NULL
//     for none); no row when the amount does not cover the price;
//   - Move (amount change, reserved change, time, account_id, currency) changes the
//     balance and returns the amount after it; no row when the account has no balance
//     in the currency (never the case of a booking that reserved its price);
//   - Entry (the columns ScanLedger reads) appends a line.
//
// The line is a statement of its own, one round trip more under the balance row's
// lock than chargeBalance's one statement on PostgreSQL, so that both engines share
// the flow and its arguments.
type LedgerSQL struct {
	Reserve, Move, Entry string
}

// ReserveFunds is the reservation of a booking created with a price (the engines'
// reserveFunds): CodeInsufficientFunds, naming the price, when the available amount
// does not cover it, and then the creation rolls back. A debit across the account's
// low-balance threshold writes billing.balance.low in the same transaction. A booking
// without a price, or with a price of zero, writes nothing.
func ReserveFunds(ctx context.Context, db *DB, tx *Tx, q LedgerSQL, b *skygate.Booking) error {
	for _, m := range skygate.BookingLedgerMoves(nil, b) {
		price := skygate.Money{Amount: -m.Amount.Amount, Currency: m.Amount.Currency}
		var (
			after     int64
			threshold sql.NullInt64
		)
		err := tx.QueryRowContext(ctx, q.Reserve, price.Amount, db.Time(UTC(b.CreatedAt)), b.AccountID,
			price.Currency).Scan(&after, &threshold)
		if errors.Is(err, sql.ErrNoRows) {
			return InsufficientFunds(price)
		}
		if err != nil {
			return fmt.Errorf("reserve funds: %w", err)
		}
		if err := entry(ctx, db, tx, q, b, m, after, b.CreatedAt); err != nil {
			return err
		}
		if err := Debited(ctx, db, tx, b.AccountID, price, after, threshold, b.Livemode, b.CreatedAt); err != nil {
			return err
		}
	}
	return nil
}

// MoveFunds writes the ledger lines of a booking's transition from before to after
// (the engines' moveFunds): releases, the charge and the refund, at after.UpdatedAt. A
// refund above the price, or in another currency, is an error that aborts the
// transition.
// None of them lowers the available amount below what it was before the transition
// (a charge follows its release), so none fails for want of funds nor fires the
// low-balance event.
func MoveFunds(ctx context.Context, db *DB, tx *Tx, q LedgerSQL, before, after *skygate.Booking) error {
	for _, m := range skygate.BookingLedgerMoves(before, after) {
		if m.Kind == skygate.LedgerRefund && (m.Amount.Currency != before.Price.Currency || m.Amount.Amount > before.Price.Amount) {
			// The service computes the refund from the price; more, or another
			// currency, is a defect that must not reach the ledger.
			return fmt.Errorf("move funds: refund %d %s of booking %s exceeds its price %d %s", m.Amount.Amount,
				m.Amount.Currency, after.ID, before.Price.Amount, before.Price.Currency)
		}
		var balance int64
		err := tx.QueryRowContext(ctx, q.Move, m.Amount.Amount, m.Reserved, db.Time(UTC(after.UpdatedAt)),
			after.AccountID, m.Amount.Currency).Scan(&balance)
		if err != nil {
			return fmt.Errorf("move funds (%s of booking %s): %w", m.Kind, after.ID, err)
		}
		if err := entry(ctx, db, tx, q, after, m, balance, after.UpdatedAt); err != nil {
			return err
		}
	}
	return nil
}

// entry appends the line of m, a move of b, to the ledger: reference and booking_id
// are the booking id, iccid NULL.
func entry(ctx context.Context, db *DB, tx *Tx, q LedgerSQL, b *skygate.Booking, m skygate.LedgerMove, balanceAfter int64, at time.Time) error {
	_, err := tx.ExecContext(ctx, q.Entry, skygate.NewID(), b.AccountID, string(m.Kind), m.Amount.Amount,
		m.Amount.Currency, balanceAfter, b.ID, skygate.BookingLedgerDescription(m.Kind, b), db.Time(UTC(at)), b.ID, nil)
	return err
}

// Debited writes billing.balance.low inside tx when the debit of price left the
// account's available amount at after, across threshold (not Valid: the account has
// none in price's currency). livemode is that of what the debit paid for.
func Debited(ctx context.Context, db *DB, tx *Tx, accountID string, price skygate.Money, after int64, threshold sql.NullInt64, livemode bool, now time.Time) error {
	if !threshold.Valid {
		return nil
	}
	events, err := skygate.BalanceLowEvents(accountID, price.Currency, after+price.Amount, after, threshold.Int64, livemode, UTC(now))
	if err != nil || len(events) == 0 {
		return err
	}
	return db.Events(ctx, tx, events)
}

// BillingSQL is an engine's statements of the billing settings: Clear (account_id)
// removes the account's thresholds, Insert (account_id, currency, amount, time) adds
// one, Select (account_id) reads currency, amount ordered by currency, and Account
// (account_id) reads 1 for an account that exists and holds, until the transaction
// ends, what keeps a concurrent SetBillingSettings of the account out (PostgreSQL
// locks the account row; SQLite has one writer). Without it two replacements both
// clear, then both insert, and one fails on the (account, currency) key.
type BillingSQL struct {
	Clear, Insert, Select, Account string
}

// SetBillingSettings is skygate.BillingStore's SetBillingSettings: concurrent calls
// for one account take turns (q.Account), the last to commit wins, and each returns
// the settings it stored.
func SetBillingSettings(ctx context.Context, db *DB, q BillingSQL, accountID string, s *skygate.BillingSettings, now time.Time) (*skygate.BillingSettings, error) {
	var stored []skygate.Money
	err := db.InTx(ctx, func(tx *Tx) error {
		var one int
		if err := tx.QueryRowContext(ctx, q.Account, accountID).Scan(&one); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, q.Clear, accountID); err != nil {
			return err
		}
		for _, t := range s.LowBalanceThresholds {
			if _, err := tx.ExecContext(ctx, q.Insert, accountID, t.Currency, t.Amount, db.Time(UTC(now))); err != nil {
				return err
			}
		}
		var err error
		stored, err = QueryAll(ctx, tx, scanMoney, q.Select, accountID)
		return err
	})
	if err != nil {
		return nil, db.Interpret(Outcome{
			Op:       "set billing settings",
			Conflict: "a currency is listed twice",
			NotFound: AccountNotFound,
		}, err)
	}
	if stored == nil {
		stored = []skygate.Money{}
	}
	return &skygate.BillingSettings{LowBalanceThresholds: stored}, nil
}

// BillingSettings is skygate.BillingStore's BillingSettings.
func BillingSettings(ctx context.Context, db *DB, q BillingSQL, accountID string) (*skygate.BillingSettings, error) {
	thresholds, err := All(ctx, db, "get billing settings", scanMoney, q.Select, accountID)
	if err != nil {
		return nil, err
	}
	if thresholds == nil {
		thresholds = []skygate.Money{}
	}
	return &skygate.BillingSettings{LowBalanceThresholds: thresholds}, nil
}

func scanMoney(row Scanner) (m skygate.Money, err error) {
	return m, row.Scan(&m.Currency, &m.Amount)
}

// LedgerBetween is skygate.BillingStore's LedgerBetween: query selects seq and then
// the columns ScanLedger reads, ordered by seq, with args; after is the page's
// keyset, returned when the page is empty.
func LedgerBetween(ctx context.Context, db *DB, query string, after int64, args ...any) ([]*skygate.LedgerEntry, int64, error) {
	last := after
	scan := func(row Scanner) (*skygate.LedgerEntry, error) {
		return ScanLedger(seqScanner{row, &last})
	}
	lines, err := All(ctx, db, "list ledger", scan, query, args...)
	if err != nil {
		return nil, 0, err
	}
	return lines, last, nil
}

// seqScanner scans a row's first column, the ledger's seq, into seq and the rest as
// the row's own Scanner would.
type seqScanner struct {
	Scanner
	seq *int64
}

func (s seqScanner) Scan(dest ...any) error {
	return s.Scanner.Scan(append([]any{s.seq}, dest...)...)
}
