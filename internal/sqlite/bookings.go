package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

var _ skygate.BookingStore = (*Store)(nil)

// bookingNotFound is the public message of a missing booking, including one of
// another account.
const bookingNotFound = "booking not found"

// bookingColumns are the columns sqlstore.ScanBooking reads.
const bookingColumns = `id, account_id, client_id, status, fast_track_id, service_date, flight,
	passengers, partner_reference, confirm_before, status_history, pass_code, pass_payload,
	pass_valid_from, pass_valid_until, created_at, updated_at, passenger_data,
	personal_data_removed_at`

// Every tenant statement names the account. Reads inside a write transaction need no
// lock: the single writer keeps every other writer out until it commits.
const (
	insertBooking = `INSERT INTO bookings (` + bookingColumns + `)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	selectBooking      = `SELECT ` + bookingColumns + ` FROM bookings WHERE account_id = ? AND id = ?`
	selectBookingAdmin = `SELECT ` + bookingColumns + ` FROM bookings WHERE id = ?`
	listBookings       = `SELECT ` + bookingColumns + ` FROM bookings
		WHERE account_id = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`
	countBookings        = `SELECT count(*) FROM bookings WHERE account_id = ?`
	listBookingsByStatus = `SELECT ` + bookingColumns + ` FROM bookings
		WHERE account_id = ? AND status = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`
	countBookingsByStatus = `SELECT count(*) FROM bookings WHERE account_id = ? AND status = ?`

	// The statuses are literals: the partial indexes bookings_pending_created and
	// bookings_issued_confirm_before serve a query only when its condition names them.
	claimPending = `SELECT ` + bookingColumns + ` FROM bookings
		WHERE status = 'Pending' AND created_at <= ? ORDER BY created_at, id LIMIT ?`
	claimIssued = `SELECT ` + bookingColumns + ` FROM bookings
		WHERE status = 'Issued' AND confirm_before < ? ORDER BY confirm_before, id LIMIT ?`

	// updateBooking writes a transition, matching the booking by account, id and the
	// status read (a compare-and-swap).
	updateBooking = `UPDATE bookings SET status = ?, confirm_before = ?, status_history = ?,
			pass_code = ?, pass_payload = ?, pass_valid_from = ?, pass_valid_until = ?,
			updated_at = ?
		WHERE account_id = ? AND id = ? AND status = ?`
)

// claimsPerTx bounds the bookings ClaimBookings moves in one transaction.
const claimsPerTx = 32

// scanBooking reads one row of bookingColumns, its sealed passengers opened.
func (s *Store) scanBooking(row sqlstore.Scanner) (*skygate.Booking, error) {
	return sqlstore.ScanBooking(s.sealer, row)
}

// bookingArgs returns the arguments of bookingColumns for a normalised booking: the
// passengers' names in clear and the passengers whole sealed.
func (s *Store) bookingArgs(b *skygate.Booking) ([]any, error) {
	history, err := sqlstore.JSONText(b.StatusHistory)
	if err != nil {
		return nil, err
	}
	flight, err := sqlstore.JSONText(b.Flight)
	if err != nil {
		return nil, err
	}
	names, err := sqlstore.JSONText(skygate.PassengerNames(b.Passengers))
	if err != nil {
		return nil, err
	}
	passengerData, err := sqlstore.SealPassengers(s.sealer, b)
	if err != nil {
		return nil, err
	}
	code, payload, from, until := passArgs(b.Pass)
	return []any{b.ID, b.AccountID, b.ClientID, string(b.Status), b.FastTrackID, b.ServiceDate,
		flight, names,
		b.PartnerReference, nullMicros(b.ConfirmBefore), history, code, payload, from, until,
		micros(b.CreatedAt), micros(b.UpdatedAt), passengerData, nullMicros(b.PersonalDataRemovedAt)}, nil
}

// passArgs returns the pass columns of p: NULL for no pass.
func passArgs(p *skygate.Pass) (code, payload, validFrom, validUntil any) {
	if p == nil {
		return nil, nil, nil, nil
	}
	return p.Code, p.Payload, micros(p.ValidFrom), micros(p.ValidUntil)
}

// CreateBooking implements skygate.BookingStore: the idempotency key, the booking and
// its events in one transaction. rec.CreatedAt is the "now" against which an existing
// record of the key counts as expired.
func (s *Store) CreateBooking(ctx context.Context, rec *skygate.IdempotencyRecord, b *skygate.Booking, events []*skygate.Event) (*skygate.IdempotencyRecord, error) {
	sqlstore.NormaliseBooking(b)
	row, err := s.bookingArgs(b)
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "create booking"}, err)
	}
	recArgs, err := s.idempotencyArgs(rec)
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "create booking"}, err)
	}
	var replay *skygate.IdempotencyRecord
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		if replay, err = s.claimKey(ctx, tx, rec, recArgs); err != nil || replay != nil {
			// The key is taken: answer with the stored record and write nothing.
			return err
		}
		if _, err := tx.ExecContext(ctx, insertBooking, row...); err != nil {
			return err
		}
		return s.insertEvents(ctx, tx, events)
	})
	if err != nil {
		return nil, interpret(sqlstore.Outcome{
			Op:       "create booking",
			Conflict: "a booking with this id already exists",
			NotFound: accountNotFound,
		}, err)
	}
	return replay, nil
}

// Booking implements skygate.BookingStore.
func (s *Store) Booking(ctx context.Context, accountID, bookingID string) (*skygate.Booking, error) {
	b, err := s.scanBooking(s.read.QueryRowContext(ctx, selectBooking, accountID, bookingID))
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "get booking", NotFound: bookingNotFound}, err)
	}
	return b, nil
}

// BookingAdmin implements skygate.BookingStore. Admin only: it ignores the account.
func (s *Store) BookingAdmin(ctx context.Context, bookingID string) (*skygate.Booking, error) {
	b, err := s.scanBooking(s.read.QueryRowContext(ctx, selectBookingAdmin, bookingID))
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "get booking (admin)", NotFound: bookingNotFound}, err)
	}
	return b, nil
}

// ListBookings implements skygate.BookingStore. A Limit of zero or less returns every
// booking after Offset.
func (s *Store) ListBookings(ctx context.Context, accountID string, status skygate.BookingStatus, p skygate.Page) ([]*skygate.Booking, int, error) {
	if status != "" {
		return listPage(ctx, s, "list bookings", s.scanBooking, listBookingsByStatus, countBookingsByStatus, p, accountID, string(status))
	}
	return listPage(ctx, s, "list bookings", s.scanBooking, listBookings, countBookings, p, accountID)
}

// TransitionBooking implements skygate.BookingStore.
func (s *Store) TransitionBooking(ctx context.Context, accountID, bookingID string, t skygate.Trigger, now time.Time, apply skygate.BookingApply) (*skygate.Booking, error) {
	return s.transitionOne(ctx, "transition booking", t, now, apply, nil, selectBooking, accountID, bookingID)
}

// TransitionBookingAdmin implements skygate.BookingStore. Admin only: it ignores the
// account.
func (s *Store) TransitionBookingAdmin(ctx context.Context, bookingID string, t skygate.Trigger, now time.Time, apply skygate.BookingApply, audit *skygate.AuditEvent) (*skygate.Booking, error) {
	return s.transitionOne(ctx, "transition booking (admin)", t, now, apply, audit, selectBookingAdmin, bookingID)
}

// transitionOne reads a booking with query (and its arguments) and applies t to it in
// one transaction, with its events and the audit record, if any.
func (s *Store) transitionOne(ctx context.Context, op string, t skygate.Trigger, now time.Time, apply skygate.BookingApply, audit *skygate.AuditEvent, query string, args ...any) (*skygate.Booking, error) {
	var out *skygate.Booking
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		before, err := s.scanBooking(tx.QueryRowContext(ctx, query, args...))
		if err != nil {
			return err
		}
		after, events, err := transition(ctx, tx, before, t, now, apply)
		if err != nil {
			return err
		}
		if err := s.insertEvents(ctx, tx, events); err != nil {
			return err
		}
		out = after
		return appendAudit(ctx, tx, audit)
	})
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: op, NotFound: bookingNotFound}, err)
	}
	return out, nil
}

// ClaimBookings implements skygate.BookingStore. Up to claimsPerTx bookings share a
// transaction.
func (s *Store) ClaimBookings(ctx context.Context, from skygate.BookingStatus, t skygate.Trigger, now time.Time, limit int, apply skygate.BookingApply) (int, error) {
	var query string
	switch from {
	case skygate.BookingPending:
		query = claimPending
	case skygate.BookingIssued:
		query = claimIssued
	default:
		return 0, skygate.Errorf(skygate.CodeValidation, "bookings in status %s are never due", from)
	}
	n := 0
	for limit <= 0 || n < limit {
		perTx := claimsPerTx
		if limit > 0 {
			perTx = min(perTx, limit-n)
		}
		moved := 0
		err := s.inTx(ctx, func(tx *sql.Tx) error {
			moved = 0
			due, err := sqlstore.QueryAll(ctx, tx, s.scanBooking, query, micros(now), perTx)
			if err != nil {
				return err
			}
			var events []*skygate.Event
			for _, before := range due {
				_, evs, err := transition(ctx, tx, before, t, now, apply)
				if err != nil {
					return err
				}
				events = append(events, evs...)
			}
			moved = len(due)
			return s.insertEvents(ctx, tx, events)
		})
		if err != nil {
			return n, interpret(sqlstore.Outcome{Op: "claim bookings"}, err)
		}
		n += moved
		if moved < perTx {
			break
		}
	}
	return n, nil
}

// transition moves before by t at now (apply run on it) and writes it inside tx, which
// read it; it returns the booking after and the events of the transition.
func transition(ctx context.Context, tx *sql.Tx, before *skygate.Booking, t skygate.Trigger, now time.Time, apply skygate.BookingApply) (*skygate.Booking, []*skygate.Event, error) {
	next, err := skygate.Transition(before.Status, t)
	if err != nil {
		return nil, nil, err
	}
	now = sqlstore.UTC(now)
	after := before.Clone()
	after.Status = next
	after.UpdatedAt = now
	after.StatusHistory = append(after.StatusHistory, skygate.StatusChange{Status: next, At: now})
	var events []*skygate.Event
	if apply != nil {
		if events, err = apply(before, after); err != nil {
			return nil, nil, err
		}
	}
	sqlstore.NormaliseBooking(after)
	history, err := sqlstore.JSONText(after.StatusHistory)
	if err != nil {
		return nil, nil, err
	}
	code, payload, from, until := passArgs(after.Pass)
	res, err := tx.ExecContext(ctx, updateBooking, string(after.Status), nullMicros(after.ConfirmBefore),
		history, code, payload, from, until, micros(after.UpdatedAt),
		before.AccountID, before.ID, string(before.Status))
	if err != nil {
		return nil, nil, err
	}
	if n, err := res.RowsAffected(); err != nil {
		return nil, nil, err
	} else if n != 1 {
		return nil, nil, fmt.Errorf("booking %s changed under the writer", before.ID)
	}
	return after, events, nil
}
