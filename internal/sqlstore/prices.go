package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/skygate/skygate"
)

// The flows of accounts' fast-track price lists and of the admins' capacities per
// slot.

// PriceSQL is an engine's statements of an account's fast-track price list, each
// taking the account first. Bump (account_id, now) adds one to the list's version,
// creating it at 1, and must come first in SetFastTrackPrices, so that it serialises
// concurrent replacements of one account's list (and an unknown account fails it on
// its foreign key); Clear deletes the account's prices; Insert (account_id,
// fast_track_id, currency, adult, child, infant, updated_at) adds one; Version reads
// the list's version and updated_at; Prices reads the account's prices ordered by
// fast_track_id in ScanFastTrackPrice's columns; PriceFor is PriceFor's statement.
type PriceSQL struct {
	Bump, Clear, Insert, Version, Prices, PriceFor string
}

// SetFastTrackPrices is skygate.PriceStore's SetFastTrackPrices.
func SetFastTrackPrices(ctx context.Context, db *DB, q PriceSQL, accountID string, prices []skygate.FastTrackPrice, now time.Time, audit *skygate.AuditEvent) (*skygate.PriceList, error) {
	if err := Audited("set fast-track prices", audit); err != nil {
		return nil, err
	}
	now = UTC(now)
	var list *skygate.PriceList
	err := db.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.ExecContext(ctx, q.Bump, accountID, db.Time(now)); err != nil {
			return err
		}
		previous, err := readPriceList(ctx, tx, q, accountID)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, q.Clear, accountID); err != nil {
			return err
		}
		for _, p := range prices {
			if _, err := tx.ExecContext(ctx, q.Insert, accountID, p.FastTrackID, p.Currency, p.Adult, p.Child, p.Infant, db.Time(now)); err != nil {
				return err
			}
		}
		if list, err = readPriceList(ctx, tx, q, accountID); err != nil {
			return err
		}
		if err := audit.AddDetails(map[string]any{"previous": previous.Prices, "prices": list.Prices}); err != nil {
			return err
		}
		return db.Audit(ctx, tx, audit)
	})
	o := Outcome{Op: "set fast-track prices", NotFound: AccountNotFound, Conflict: "the price list names a fast-track twice"}
	if err != nil {
		return nil, db.Interpret(o, err)
	}
	return list, nil
}

// FastTrackPrices is skygate.PriceStore's FastTrackPrices.
func FastTrackPrices(ctx context.Context, db *DB, q PriceSQL, accountID string) (*skygate.PriceList, error) {
	var list *skygate.PriceList
	err := inReadTx(ctx, db, func(tx *sql.Tx) error {
		var err error
		list, err = readPriceList(ctx, tx, q, accountID)
		return err
	})
	if err != nil {
		return nil, db.Interpret(Outcome{Op: "get fast-track prices"}, err)
	}
	return list, nil
}

// PriceFor is skygate.PriceStore's PriceFor: q.PriceFor (account_id, fast_track_id)
// reads whether the account has any price, then the fast-track's price columns, NULL
// when it has none.
func PriceFor(ctx context.Context, db *DB, q PriceSQL, accountID, fastTrackID string) (*skygate.FastTrackPrice, bool, error) {
	var (
		has                  bool
		id, currency         sql.NullString
		adult, child, infant sql.NullInt64
	)
	err := db.Read.QueryRowContext(ctx, q.PriceFor, accountID, fastTrackID).Scan(&has, &id, &currency, &adult, &child, &infant)
	if err != nil {
		return nil, false, db.Interpret(Outcome{Op: "get price for a booking"}, err)
	}
	if !id.Valid {
		return nil, has, nil
	}
	return &skygate.FastTrackPrice{FastTrackID: id.String, Currency: currency.String,
		Adult: adult.Int64, Child: child.Int64, Infant: infant.Int64}, true, nil
}

// readPriceList reads the account's version and prices inside tx.
func readPriceList(ctx context.Context, tx Queryer, q PriceSQL, accountID string) (*skygate.PriceList, error) {
	list := &skygate.PriceList{AccountID: accountID, Prices: []skygate.FastTrackPrice{}}
	var at time.Time
	err := tx.QueryRowContext(ctx, q.Version, accountID).Scan(&list.Version, timeCol{&at})
	if errors.Is(err, sql.ErrNoRows) {
		return list, nil
	}
	if err != nil {
		return nil, err
	}
	list.UpdatedAt = &at
	prices, err := QueryAll(ctx, tx, ScanFastTrackPrice, q.Prices, accountID)
	if err != nil {
		return nil, err
	}
	for _, p := range prices {
		list.Prices = append(list.Prices, *p)
	}
	return list, nil
}

// ScanFastTrackPrice reads fast_track_id, currency, adult, child, infant.
func ScanFastTrackPrice(row Scanner) (*skygate.FastTrackPrice, error) {
	var p skygate.FastTrackPrice
	if err := row.Scan(&p.FastTrackID, &p.Currency, &p.Adult, &p.Child, &p.Infant); err != nil {
		return nil, err
	}
	return &p, nil
}

// CapacitySQL is an engine's statements of the admins' capacities per slot: Upsert
// takes fast_track_id, capacity, updated_at; Delete (fast_track_id) removes one; Lock
// (fast_track_id) reads the fast-track's capacity, locking its row for the rest of the
// transaction where the engine can.
type CapacitySQL struct {
	Upsert, Delete, Lock string
}

// SetFastTrackCapacity is skygate.CapacityStore's SetFastTrackCapacity.
func SetFastTrackCapacity(ctx context.Context, db *DB, q CapacitySQL, fastTrackID string, capacity int, now time.Time, audit *skygate.AuditEvent) error {
	if err := Audited("set fast-track capacity", audit); err != nil {
		return err
	}
	if capacity < 0 {
		return skygate.Errorf(skygate.CodeBadRequest, "a capacity per slot cannot be negative")
	}
	err := db.InTx(ctx, func(tx *Tx) error {
		previous, err := lockCapacity(ctx, tx, q, fastTrackID)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, q.Upsert, fastTrackID, capacity, db.Time(UTC(now))); err != nil {
			return err
		}
		if err := audit.AddDetails(map[string]any{"previous_capacity_per_slot": previous}); err != nil {
			return err
		}
		return db.Audit(ctx, tx, audit)
	})
	return db.Interpret(Outcome{Op: "set fast-track capacity"}, err)
}

// DeleteFastTrackCapacity is skygate.CapacityStore's DeleteFastTrackCapacity.
func DeleteFastTrackCapacity(ctx context.Context, db *DB, q CapacitySQL, fastTrackID string, audit *skygate.AuditEvent) error {
	if err := Audited("delete fast-track capacity", audit); err != nil {
		return err
	}
	err := db.InTx(ctx, func(tx *Tx) error {
		previous, err := lockCapacity(ctx, tx, q, fastTrackID)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, q.Delete, fastTrackID); err != nil {
			return err
		}
		if err := audit.AddDetails(map[string]any{"previous_capacity_per_slot": previous}); err != nil {
			return err
		}
		return db.Audit(ctx, tx, audit)
	})
	return db.Interpret(Outcome{Op: "delete fast-track capacity"}, err)
}

// lockCapacity reads the fast-track's capacity set by an admin inside tx with q.Lock:
// nil when none is.
func lockCapacity(ctx context.Context, tx *Tx, q CapacitySQL, fastTrackID string) (*int, error) {
	var n int
	err := tx.QueryRowContext(ctx, q.Lock, fastTrackID).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &n, nil
}

// FastTrackCapacity is skygate.CapacityStore's FastTrackCapacity with query, which
// takes fast_track_id and reads capacity.
func FastTrackCapacity(ctx context.Context, db *DB, query, fastTrackID string) (int, bool, error) {
	var n int
	err := db.Read.QueryRowContext(ctx, query, fastTrackID).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, db.Interpret(Outcome{Op: "get fast-track capacity"}, err)
	}
	return n, true, nil
}

// FastTrackCapacities is skygate.CapacityStore's FastTrackCapacities with query, which
// reads fast_track_id and capacity of every row.
func FastTrackCapacities(ctx context.Context, db *DB, query string) (map[string]int, error) {
	type row struct {
		id string
		n  int
	}
	rows, err := QueryAll(ctx, db.Read, func(sc Scanner) (row, error) {
		var r row
		return r, sc.Scan(&r.id, &r.n)
	}, query)
	if err != nil {
		return nil, db.Interpret(Outcome{Op: "list fast-track capacities"}, err)
	}
	out := make(map[string]int, len(rows))
	for _, r := range rows {
		out[r.id] = r.n
	}
	return out, nil
}
