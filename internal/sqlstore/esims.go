package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/skygate/skygate"
)

// The flows of eSIM orders, top-ups and the changes of an eSIM, and of the pool's
// import.

// Public messages of missing rows, including rows of another account.
const (
	ESIMNotFound      = "eSIM not found"
	ESIMOrderNotFound = "eSIM order not found"
	TopUpNotFound     = "top-up not found"
)

// Profile is a pool profile taken for an order.
type Profile struct {
	ICCID, SMDP string
	Sealed      []byte
}

// Allocate marks n Available profiles of the account Assigned to the order inside tx,
// oldest import first, and returns them, or returns CodePoolExhausted when fewer than
// n are free.
type Allocate func(ctx context.Context, tx *Tx, accountID, orderID string, n int) ([]Profile, error)

// OrderSQL is an engine's statements of CreateESIMOrder: Key claims its idempotency
// key; Priced reads its package's terms (see pricedPackage); Insert (the columns
// ScanESIMOrder reads) writes the order; ESIMs (the ICCIDs as Strings, account_id,
// order_id, package_id, status, total_mb, used_mb, validity_days,
// notified_thresholds, the time of created_at and updated_at, livemode, refund_until)
// writes its eSIMs;
// History (the ICCIDs as Strings, account_id, at, kind, data) writes one history
// entry for each of them.
type OrderSQL struct {
	Key                            KeySQL
	Priced, Insert, ESIMs, History string
}

// CreateESIMOrder is skygate.ESIMStore's CreateESIMOrder: the idempotency key, the
// order, its profiles (allocate) and eSIMs, its events and the debit (charge) in one
// transaction. The debit is the last statement, so that the balance row, which every
// paid order of the account in that currency updates, is locked only from there to
// the commit where the engine locks rows; the balance read before the allocation
// fails an order it cannot cover before it takes profiles, and the debit's condition
// keeps the balance from going below zero.
func CreateESIMOrder(ctx context.Context, db *DB, q OrderSQL, allocate Allocate, charge Charge, rec *skygate.IdempotencyRecord, o *skygate.ESIMOrder, apply skygate.ESIMOrderApply) (*skygate.IdempotencyRecord, error) {
	o.CreatedAt = UTC(o.CreatedAt)
	o.Status = skygate.ESIMOrderCompleted
	recArgs, err := IdempotencyArgs(db, rec)
	if err != nil {
		return nil, db.Interpret(Outcome{Op: "create eSIM order"}, err)
	}
	var replay *skygate.IdempotencyRecord
	err = db.InTx(ctx, func(tx *Tx) error {
		var err error
		if replay, err = ClaimKey(ctx, db, q.Key, tx, rec, recArgs); err != nil || replay != nil {
			// The key is taken: answer with the stored record and write nothing.
			return err
		}
		pkg, err := pricedPackage(ctx, tx, q.Priced, o.AccountID, o.PackageID, o.UnitPrice)
		if err != nil {
			return err
		}
		if pkg.balance < o.Total.Amount {
			return InsufficientFunds(o.Total)
		}
		_, err = tx.ExecContext(ctx, q.Insert, o.ID, o.AccountID, o.ClientID, o.PackageID,
			o.Quantity, o.PartnerReference, string(o.Status), o.UnitPrice.Amount, o.Total.Amount,
			o.Total.Currency, db.Time(o.CreatedAt), o.Livemode)
		if err != nil {
			return err
		}
		profiles, err := allocate(ctx, tx, o.AccountID, o.ID, o.Quantity)
		if err != nil {
			return err
		}
		slices.SortFunc(profiles, func(a, b Profile) int { return strings.Compare(a.ICCID, b.ICCID) })
		// The refund window is the package's at the sale: a later change of the
		// package's window leaves these eSIMs' alone.
		refundUntil := skygate.RefundableUntil(o.CreatedAt, pkg.refundWindow)
		o.ESIMs = make([]*skygate.ESIM, len(profiles))
		iccids := make([]string, len(profiles))
		for i, p := range profiles {
			o.ESIMs[i] = &skygate.ESIM{
				ICCID: p.ICCID, AccountID: o.AccountID, OrderID: o.ID, PackageID: o.PackageID,
				Status: skygate.ESIMAssigned, ProfileState: skygate.ProfileReleased, Usage: skygate.NewESIMUsage(pkg.dataMB, 0),
				ValidityDays: pkg.validityDays, NotifiedThresholds: []int{},
				SMDPAddress: p.SMDP, MatchingIDSealed: p.Sealed, CreatedAt: o.CreatedAt, UpdatedAt: o.CreatedAt,
				Livemode: o.Livemode, RefundUntil: refundUntil,
			}
			iccids[i] = p.ICCID
		}
		list, err := db.Strings(iccids)
		if err != nil {
			return err
		}
		usage := skygate.NewESIMUsage(pkg.dataMB, 0)
		_, err = tx.ExecContext(ctx, q.ESIMs, list, o.AccountID, o.ID, o.PackageID,
			string(skygate.ESIMAssigned), usage.TotalMB, usage.UsedMB, pkg.validityDays, "[]", db.Time(o.CreatedAt),
			o.Livemode, db.NullTime(refundUntil))
		if err != nil {
			return err
		}
		ordered, err := historyData(&skygate.ESIMHistoryEntry{OrderID: o.ID, PackageID: o.PackageID, Price: &o.UnitPrice})
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, q.History, list, o.AccountID, db.Time(o.CreatedAt), string(skygate.HistoryOrdered), ordered)
		if err != nil {
			return err
		}
		if apply != nil {
			events, err := apply(o)
			if err != nil {
				return err
			}
			if err := db.Events(ctx, tx, events); err != nil {
				return err
			}
		}
		if o.Total.Amount == 0 {
			return nil
		}
		desc := fmt.Sprintf("eSIM order: %d × %s", o.Quantity, pkg.nameEN)
		return charge(ctx, tx, o.AccountID, o.Total, o.Livemode, o.ID, desc, o.CreatedAt)
	})
	if err != nil {
		return nil, db.Interpret(Outcome{
			Op:       "create eSIM order",
			Conflict: "an eSIM order with this id already exists",
			NotFound: AccountNotFound,
		}, err)
	}
	return replay, nil
}

// ESIMOrder is skygate.ESIMStore's ESIMOrder: order (account_id, id) reads the order
// and esims its eSIMs (see attachESIMs).
func ESIMOrder(ctx context.Context, db *DB, order, esims, accountID, orderID string) (*skygate.ESIMOrder, error) {
	return getThen(ctx, db, Outcome{Op: "get eSIM order", NotFound: ESIMOrderNotFound}, func(tx Queryer, o *skygate.ESIMOrder) error {
		return attachESIMs(ctx, db, tx, esims, accountID, []*skygate.ESIMOrder{o})
	}, ScanESIMOrder, order, accountID, orderID)
}

// ListESIMOrders is skygate.ESIMStore's ListESIMOrders: list (account_id, LIMIT,
// OFFSET) reads a page of the account's orders and count counts them; esims reads
// their eSIMs (see attachESIMs).
func ListESIMOrders(ctx context.Context, db *DB, list, count, esims, accountID string, p skygate.Page) ([]*skygate.ESIMOrder, int, error) {
	return listPage(ctx, db, Outcome{Op: "list eSIM orders"}, func(tx Queryer, orders []*skygate.ESIMOrder) error {
		return attachESIMs(ctx, db, tx, esims, accountID, orders)
	}, ScanESIMOrder, list, count, p, accountID)
}

// attachESIMs reads the eSIMs of the account's orders inside tx with esims
// (account_id, order ids as Strings; ScanESIM's columns) and sets their ESIMs.
func attachESIMs(ctx context.Context, db *DB, tx Queryer, esims, accountID string, orders []*skygate.ESIMOrder) error {
	if len(orders) == 0 {
		return nil
	}
	byID := make(map[string]*skygate.ESIMOrder, len(orders))
	ids := make([]string, len(orders))
	for i, o := range orders {
		byID[o.ID] = o
		ids[i] = o.ID
	}
	list, err := db.Strings(ids)
	if err != nil {
		return err
	}
	found, err := QueryAll(ctx, tx, ScanESIM, esims, accountID, list)
	if err != nil {
		return err
	}
	for _, e := range found {
		if o := byID[e.OrderID]; o != nil {
			o.ESIMs = append(o.ESIMs, e)
		}
	}
	return nil
}

// ChangeSQL is an engine's statements of a change of an eSIM: Lock (account_id,
// iccid) reads it in ScanESIM's columns, locking its row where the engine has
// concurrent writers, so that a concurrent change waits and then sees this one's
// result; Update (status, total_mb, used_mb, validity_days, notified_thresholds,
// installed_at, activated_at, expires_at, updated_at, profile_state, canceled_at,
// expiry_warned, account_id, iccid) writes it; History (account_id, iccid, at, kind,
// data) appends an entry to its history.
type ChangeSQL struct {
	Lock, Update, History string
}

// WriteHistory appends entries to the history of the account's eSIM iccid inside tx
// with history (see ChangeSQL): at and kind are their columns, data the rest
// (historyData).
func WriteHistory(ctx context.Context, db *DB, tx *Tx, history, accountID, iccid string, entries ...*skygate.ESIMHistoryEntry) error {
	for _, h := range entries {
		data, err := historyData(h)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, history, accountID, iccid, db.Time(UTC(h.At)), string(h.Kind), data); err != nil {
			return fmt.Errorf("write eSIM history: %w", err)
		}
	}
	return nil
}

// historyData is the JSON of h stored in esim_history.data: its fields beside at and
// kind, which have columns of their own. (Rows written before hold those two as well;
// scanHistory lets the columns win.)
func historyData(h *skygate.ESIMHistoryEntry) (string, error) {
	// The outer fields shadow the entry's of the same JSON name and, nil, are omitted.
	return JSONText(struct {
		*skygate.ESIMHistoryEntry
		At   *struct{} `json:"at,omitempty"`
		Kind *struct{} `json:"kind,omitempty"`
	}{ESIMHistoryEntry: h})
}

// lockESIM reads the account's eSIM inside tx with lock; a missing eSIM is
// CodeNotFound.
func lockESIM(ctx context.Context, tx *Tx, lock, accountID, iccid string) (*skygate.ESIM, error) {
	e, err := ScanESIM(tx.QueryRowContext(ctx, lock, accountID, iccid))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound(ESIMNotFound)
	}
	return e, err
}

// applyESIM calls apply on a copy of before, writes the copy, the history of the
// change (skygate.ESIMChangeHistory) and the events with q inside tx, and returns the
// copy.
func applyESIM(ctx context.Context, db *DB, tx *Tx, q ChangeSQL, before *skygate.ESIM, now time.Time, apply skygate.ESIMApply) (*skygate.ESIM, error) {
	after := before.Clone()
	var events []*skygate.Event
	if apply != nil {
		var err error
		if events, err = apply(before, after); err != nil {
			return nil, err
		}
	}
	after.UpdatedAt = now
	normaliseESIM(after)
	notified, err := JSONText(after.NotifiedThresholds)
	if err != nil {
		return nil, err
	}
	_, err = tx.ExecContext(ctx, q.Update, string(after.Status), after.Usage.TotalMB,
		after.Usage.UsedMB, after.ValidityDays, notified, db.NullTime(after.InstalledAt),
		db.NullTime(after.ActivatedAt), db.NullTime(after.ExpiresAt), db.Time(after.UpdatedAt),
		string(after.ProfileState), db.NullTime(after.CanceledAt), after.ExpiryWarned,
		before.AccountID, before.ICCID)
	if err != nil {
		return nil, err
	}
	if err := WriteHistory(ctx, db, tx, q.History, before.AccountID, before.ICCID, skygate.ESIMChangeHistory(before, after, after.UpdatedAt)...); err != nil {
		return nil, err
	}
	return after, db.Events(ctx, tx, events)
}

// UpdateESIM is skygate.ESIMStore's UpdateESIM.
func UpdateESIM(ctx context.Context, db *DB, q ChangeSQL, accountID, iccid string, now time.Time, apply skygate.ESIMApply) (*skygate.ESIM, error) {
	var out *skygate.ESIM
	err := db.InTx(ctx, func(tx *Tx) error {
		before, err := lockESIM(ctx, tx, q.Lock, accountID, iccid)
		if err != nil {
			return err
		}
		out, err = applyESIM(ctx, db, tx, q, before, now, apply)
		return err
	})
	if err != nil {
		return nil, db.Interpret(Outcome{Op: "update eSIM", NotFound: ESIMNotFound}, err)
	}
	return out, nil
}

// ExpireESIMs is skygate.ESIMStore's ExpireESIMs: due (now, the ICCIDs to skip as
// Strings) reads the eSIM that is due first, skipping those other claimers hold where
// there can be any, and q writes it. Each eSIM is its own transaction (see
// sweepESIMs).
func ExpireESIMs(ctx context.Context, db *DB, due string, q ChangeSQL, now time.Time, limit int, apply skygate.ESIMApply) (int, error) {
	now = UTC(now)
	claim := func(tx *Tx, skip any) (*skygate.ESIM, error) {
		return ScanESIM(tx.QueryRowContext(ctx, due, db.Time(now), skip))
	}
	return sweepESIMs(ctx, db, "expire eSIMs", q, now, limit, claim, apply, func(after *skygate.ESIM) error {
		if after.Status == skygate.ESIMActive || after.Status == skygate.ESIMDepleted {
			// Left due, the eSIM would be claimed again forever.
			return fmt.Errorf("expiry left it in status %s", after.Status)
		}
		return nil
	})
}

// sweepESIMs changes due eSIMs of every account with apply at now, each in its own
// transaction, until limit were changed (no limit when limit <= 0) or none is due, and
// returns how many were changed. claim reads the next due eSIM inside tx, none of the
// ICCIDs of skip (as Strings), or sql.ErrNoRows; settled checks that apply left the
// eSIM no longer due. An eSIM whose change fails (apply's refusal, a failed check, a
// failed write) is rolled back and skipped for the rest of the call, so that it cannot
// stall the eSIMs due after it: the call goes on and returns, beside the count, an
// error naming each such eSIM's ICCID. An error of the claim itself stops the call.
func sweepESIMs(ctx context.Context, db *DB, op string, q ChangeSQL, now time.Time, limit int,
	claim func(tx *Tx, skip any) (*skygate.ESIM, error), apply skygate.ESIMApply, settled func(after *skygate.ESIM) error,
) (int, error) {
	var (
		failed = []string{} // never nil: a NULL list would match no ICCID
		errs   []error
		done   int
	)
	for limit <= 0 || done < limit {
		skip, err := db.Strings(failed)
		if err != nil {
			return done, errors.Join(append(errs, err)...)
		}
		var claimed *skygate.ESIM
		err = db.InTx(ctx, func(tx *Tx) error {
			claimed = nil
			before, err := claim(tx, skip)
			if err != nil {
				return err
			}
			claimed = before
			after, err := applyESIM(ctx, db, tx, q, before, now, apply)
			if err != nil {
				return err
			}
			return settled(after)
		})
		switch {
		case claimed == nil && errors.Is(err, sql.ErrNoRows):
			return done, errors.Join(errs...)
		case claimed == nil && err != nil:
			return done, errors.Join(append(errs, db.Interpret(Outcome{Op: op}, err))...)
		case err != nil:
			failed = append(failed, claimed.ICCID)
			errs = append(errs, fmt.Errorf("eSIM %s: %w", claimed.ICCID, db.Interpret(Outcome{Op: op}, err)))
		default:
			done++
		}
	}
	return done, errors.Join(errs...)
}

// TopUpSQL is an engine's statements of TopUpESIM: Key claims its idempotency key;
// Change reads and writes the eSIM; Priced reads its package's terms (see
// pricedPackage); Insert (the columns scanTopUp reads) writes the top-up.
type TopUpSQL struct {
	Key            KeySQL
	Change         ChangeSQL
	Priced, Insert string
}

// TopUpESIM is skygate.ESIMStore's TopUpESIM: the idempotency key, the top-up, the
// eSIM's change with its events and the debit (charge) in one transaction. The eSIM is
// read (locked) before the balance is debited, the order of locks every top-up takes;
// orders never lock eSIM rows, so the two cannot deadlock. As in CreateESIMOrder, the
// debit is the last statement, and the balance is read beforehand so that a top-up it
// cannot cover fails before apply.
func TopUpESIM(ctx context.Context, db *DB, q TopUpSQL, charge Charge, rec *skygate.IdempotencyRecord, t *skygate.TopUp, apply skygate.ESIMApply) (*skygate.IdempotencyRecord, error) {
	t.CreatedAt = UTC(t.CreatedAt)
	recArgs, err := IdempotencyArgs(db, rec)
	if err != nil {
		return nil, db.Interpret(Outcome{Op: "top up eSIM"}, err)
	}
	var replay *skygate.IdempotencyRecord
	err = db.InTx(ctx, func(tx *Tx) error {
		var err error
		if replay, err = ClaimKey(ctx, db, q.Key, tx, rec, recArgs); err != nil || replay != nil {
			return err
		}
		before, err := lockESIM(ctx, tx, q.Change.Lock, t.AccountID, t.ICCID)
		if err != nil {
			return err
		}
		pkg, err := pricedPackage(ctx, tx, q.Priced, t.AccountID, t.PackageID, t.Price)
		if err != nil {
			return err
		}
		if pkg.balance < t.Price.Amount {
			return InsufficientFunds(t.Price)
		}
		t.DataMB, t.ValidityDays = pkg.dataMB, pkg.validityDays
		_, err = tx.ExecContext(ctx, q.Insert, t.ID, t.AccountID, t.ClientID, t.ICCID, t.PackageID,
			t.DataMB, t.ValidityDays, t.Price.Amount, t.Price.Currency, db.Time(t.CreatedAt))
		if err != nil {
			return err
		}
		toppedUp := &skygate.ESIMHistoryEntry{At: t.CreatedAt, Kind: skygate.HistoryToppedUp, TopUpID: t.ID,
			PackageID: t.PackageID, Price: &t.Price}
		if err := WriteHistory(ctx, db, tx, q.Change.History, t.AccountID, t.ICCID, toppedUp); err != nil {
			return err
		}
		if t.ESIM, err = applyESIM(ctx, db, tx, q.Change, before, t.CreatedAt, apply); err != nil {
			return err
		}
		if t.Price.Amount == 0 {
			return nil
		}
		desc := fmt.Sprintf("eSIM top-up of %s: %s", t.ICCID, pkg.nameEN)
		return charge(ctx, tx, t.AccountID, t.Price, t.ESIM.Livemode, t.ID, desc, t.CreatedAt)
	})
	if err != nil {
		return nil, db.Interpret(Outcome{
			Op:       "top up eSIM",
			Conflict: "a top-up with this id already exists",
			NotFound: AccountNotFound,
		}, err)
	}
	return replay, nil
}

// TopUp is skygate.ESIMStore's TopUp: topUp (account_id, id) reads the top-up and esim
// (account_id, iccid) its eSIM, in one snapshot.
func TopUp(ctx context.Context, db *DB, topUp, esim, accountID, topUpID string) (*skygate.TopUp, error) {
	return getThen(ctx, db, Outcome{Op: "get top-up", NotFound: TopUpNotFound}, func(tx Queryer, t *skygate.TopUp) (err error) {
		t.ESIM, err = ScanESIM(tx.QueryRowContext(ctx, esim, accountID, t.ICCID))
		return err
	}, scanTopUp, topUp, accountID, topUpID)
}

// InsertProfiles inserts the account's profiles, none repeating an ICCID, inside tx
// and returns the indexes of those it did not insert because their ICCID is in some
// pool already.
type InsertProfiles func(ctx context.Context, tx *Tx, accountID string, profiles []*skygate.PoolProfile) (taken []int, err error)

// ImportPoolProfiles is skygate.ESIMStore's ImportPoolProfiles. Any duplicate ICCID,
// in the request or in some pool, rolls the whole import back.
func ImportPoolProfiles(ctx context.Context, db *DB, insert InsertProfiles, accountID string, profiles []*skygate.PoolProfile, audit *skygate.AuditEvent) error {
	if err := Audited("import pool profiles", audit); err != nil {
		return err
	}
	var problems []skygate.FieldError
	first := make(map[string]int, len(profiles))
	for i, p := range profiles {
		p.AccountID, p.Status, p.OrderID, p.ImportedAt = accountID, skygate.PoolAvailable, "", UTC(p.ImportedAt)
		if j, ok := first[p.ICCID]; ok {
			problems = append(problems, skygate.FieldError{
				Field: fmt.Sprintf("[%d].iccid", i), Message: fmt.Sprintf("repeats the ICCID of [%d]", j),
			})
			continue
		}
		first[p.ICCID] = i
	}
	if len(problems) > 0 {
		return skygate.ValidationError(problems...)
	}
	err := db.InTx(ctx, func(tx *Tx) error {
		taken, err := insert(ctx, tx, accountID, profiles)
		if err != nil {
			return err
		}
		for _, i := range taken {
			problems = append(problems, skygate.FieldError{
				Field: fmt.Sprintf("[%d].iccid", i), Message: "is already in a pool",
			})
		}
		if len(problems) > 0 {
			return skygate.ValidationError(problems...)
		}
		return db.Audit(ctx, tx, audit)
	})
	return db.Interpret(Outcome{Op: "import pool profiles", NotFound: AccountNotFound}, err)
}

// PoolCounts is skygate.ESIMStore's PoolCounts with count (account_id), which reads
// the status and number of each status's profiles.
func PoolCounts(ctx context.Context, db *DB, count, accountID string) (*skygate.PoolCounts, error) {
	c := &skygate.PoolCounts{ByStatus: map[skygate.PoolProfileStatus]int{}}
	for _, st := range skygate.PoolProfileStatuses {
		c.ByStatus[st] = 0
	}
	type byStatus struct {
		status string
		n      int
	}
	counts, err := All(ctx, db, "count pool profiles", func(row Scanner) (c byStatus, err error) {
		return c, row.Scan(&c.status, &c.n)
	}, count, accountID)
	if err != nil {
		return nil, err
	}
	for _, n := range counts {
		c.ByStatus[skygate.PoolProfileStatus(n.status)] = n.n
		c.Total += n.n
	}
	return c, nil
}
