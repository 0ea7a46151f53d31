package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/skygate/skygate"
)

// The flows of an eSIM after its sale that read or move money: the cancel of an unused
// eSIM with its refund, and the eSIM's history.

// CancelSQL is an engine's statements of CancelESIM: Change reads (locking) and writes
// the eSIM; Paid (account_id, iccid) reads what was paid for it, one row per payment
// (kind 'order' or 'topup', id, the eSIM's share, what was paid on that reference in
// all, currency, time), ordered by currency, then time and id, so that a cancel locks
// the balance rows of several currencies in one order; Lock (account_id, currency,
// time) locks the balance row, creating it at zero, until the commit; Refunded
// (account_id, reference, currency) sums the refund lines of a reference; Credit
// (account_id, currency, amount, time) adds to the balance, creating it, and returns
// the new amount; Entry (the columns ScanLedger reads) appends a ledger line.
type CancelSQL struct {
	Change                              ChangeSQL
	Paid, Lock, Refunded, Credit, Entry string
}

// payment is one row of CancelSQL.Paid: share is what the eSIM got of paid, the
// amount of the order or top-up id.
type payment struct {
	kind, id    string
	share, paid skygate.Money
	at          time.Time
}

// CancelESIM is skygate.ESIMCancelStore's CancelESIM. The eSIM's row is locked before
// any balance row, the order of locks of a top-up (TopUpESIM), so a cancel and a
// top-up of one eSIM take turns: the top-up either commits first, and its price is
// refunded with the rest, or finds the eSIM Canceled and fails. Orders and bookings
// lock no eSIM row. A cancel that finds the eSIM Canceled already, and that apply
// leaves so, writes nothing: a repeat refunds nothing.
func CancelESIM(ctx context.Context, db *DB, q CancelSQL, accountID, iccid string, now time.Time, apply skygate.ESIMApply) (*skygate.ESIM, error) {
	now = UTC(now)
	var out *skygate.ESIM
	err := db.InTx(ctx, func(tx *Tx) error {
		before, err := lockESIM(ctx, tx, q.Change.Lock, accountID, iccid)
		if err != nil {
			return err
		}
		if before.Status == skygate.ESIMCanceled {
			// Canceled is final (skygate.CanTransition): apply may only refuse, so
			// it runs on a copy for its error and nothing is written.
			out = before
			if apply != nil {
				_, err = apply(before, before.Clone())
			}
			return err
		}
		if out, err = applyESIM(ctx, db, tx, q.Change, before, now, apply); err != nil {
			return err
		}
		if out.Status != skygate.ESIMCanceled {
			return nil
		}
		return refundESIM(ctx, db, tx, q, out, now)
	})
	if err != nil {
		return nil, db.Interpret(Outcome{Op: "cancel eSIM", NotFound: ESIMNotFound}, err)
	}
	return out, nil
}

// refundESIM credits what was paid for e back to its balance inside tx at now: for
// each payment, its share less what is left of it after the refund lines already on
// its reference (other eSIMs of the order canceled, refunds by an employee), each
// non-zero refund with a refund line naming e and a HistoryRefunded entry. The sum
// is read while the balance row is locked, and every refund of a reference locks that
// row first, so that no two refunds of one reference both count the same remainder.
func refundESIM(ctx context.Context, db *DB, tx *Tx, q CancelSQL, e *skygate.ESIM, now time.Time) error {
	paid, err := QueryAll(ctx, tx, func(row Scanner) (p payment, err error) {
		err = row.Scan(&p.kind, &p.id, &p.share.Amount, &p.paid.Amount, &p.share.Currency, timeCol{&p.at})
		p.paid.Currency = p.share.Currency
		return p, err
	}, q.Paid, e.AccountID, e.ICCID)
	if err != nil {
		return fmt.Errorf("read the payments of eSIM %s: %w", e.ICCID, err)
	}
	for _, p := range paid {
		if p.share.Amount <= 0 {
			continue
		}
		refund, err := refundable(ctx, db, tx, q, e.AccountID, p, now)
		if err != nil {
			return fmt.Errorf("refund %s %s of eSIM %s: %w", p.kind, p.id, e.ICCID, err)
		}
		if refund.Amount <= 0 {
			continue
		}
		var after int64
		err = tx.QueryRowContext(ctx, q.Credit, e.AccountID, refund.Currency, refund.Amount, db.Time(now)).Scan(&after)
		if err != nil {
			return fmt.Errorf("refund %s %s of eSIM %s: %w", p.kind, p.id, e.ICCID, err)
		}
		h := &skygate.ESIMHistoryEntry{At: now, Kind: skygate.HistoryRefunded, Price: &refund, LedgerEntryID: skygate.NewID()}
		desc := fmt.Sprintf("eSIM %s canceled: refund of ", e.ICCID)
		if p.kind == "order" {
			h.OrderID, desc = p.id, desc+"order "+p.id
		} else {
			h.TopUpID, desc = p.id, desc+"top-up "+p.id
		}
		_, err = tx.ExecContext(ctx, q.Entry, h.LedgerEntryID, e.AccountID, string(skygate.LedgerRefund),
			refund.Amount, refund.Currency, after, p.id, desc, db.Time(now), nil, e.ICCID)
		if err != nil {
			return fmt.Errorf("write the refund line of eSIM %s: %w", e.ICCID, err)
		}
		if err := WriteHistory(ctx, db, tx, q.Change.History, e.AccountID, e.ICCID, h); err != nil {
			return err
		}
	}
	return nil
}

// refundable locks the account's balance row in p's currency inside tx and returns
// what a cancel may refund of p: its share, at most what was paid on its reference
// less the refund lines already there.
func refundable(ctx context.Context, db *DB, tx *Tx, q CancelSQL, accountID string, p payment, now time.Time) (skygate.Money, error) {
	if _, err := tx.ExecContext(ctx, q.Lock, accountID, p.share.Currency, db.Time(now)); err != nil {
		return skygate.Money{}, fmt.Errorf("lock the balance: %w", err)
	}
	var refunded int64
	if err := tx.QueryRowContext(ctx, q.Refunded, accountID, p.id, p.share.Currency).Scan(&refunded); err != nil {
		return skygate.Money{}, fmt.Errorf("sum the refunds: %w", err)
	}
	return skygate.Money{Amount: min(p.share.Amount, p.paid.Amount-refunded), Currency: p.share.Currency}, nil
}

// HistorySQL is an engine's statements of ESIMHistory: ESIM (account_id, iccid) reads
// a row when the account has the eSIM; List (account_id, iccid, LIMIT, OFFSET) reads
// at, kind and data of its entries oldest first; Count (account_id, iccid) counts
// them.
type HistorySQL struct {
	ESIM, List, Count string
}

// ESIMHistory is skygate.ESIMHistoryStore's ESIMHistory, from one snapshot.
func ESIMHistory(ctx context.Context, db *DB, q HistorySQL, accountID, iccid string, p skygate.Page) ([]*skygate.ESIMHistoryEntry, int, error) {
	limit, offset := PageArgs(p)
	var (
		entries []*skygate.ESIMHistoryEntry
		total   int
	)
	err := inReadTx(ctx, db, func(tx *sql.Tx) error {
		var one int
		err := tx.QueryRowContext(ctx, q.ESIM, accountID, iccid).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound(ESIMNotFound)
		}
		if err != nil {
			return err
		}
		if entries, err = QueryAll(ctx, tx, scanHistory, q.List, accountID, iccid, limit, offset); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, q.Count, accountID, iccid).Scan(&total)
	})
	if err != nil {
		return nil, 0, db.Interpret(Outcome{Op: "list eSIM history", NotFound: ESIMNotFound}, err)
	}
	return entries, total, nil
}

// scanHistory reads at, kind, data: the entry's fields beside at and kind are data's
// JSON (WriteHistory), the columns win over whatever data holds for those two.
func scanHistory(row Scanner) (*skygate.ESIMHistoryEntry, error) {
	var (
		h    skygate.ESIMHistoryEntry
		at   time.Time
		kind string
	)
	if err := row.Scan(timeCol{&at}, &kind, jsonCol{&h}); err != nil {
		return nil, err
	}
	h.At, h.Kind = at, skygate.ESIMHistoryKind(kind)
	return &h, nil
}
