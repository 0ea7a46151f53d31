package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

var _ skygate.BookingStore = (*Store)(nil)

// bookingColumns are the columns sqlstore.ScanBooking reads.
const bookingColumns = `id, account_id, client_id, status, fast_track_id, service_date, flight,
	passengers, partner_reference, confirm_before, status_history, pass_code, pass_payload,
	pass_valid_from, pass_valid_until, created_at, updated_at, passenger_data,
	personal_data_removed_at, livemode, commerce`

// Every tenant statement names the account. Reads inside a write transaction need no
// lock: the single writer keeps every other writer out until it commits.
const (
	insertBooking = `INSERT INTO bookings (` + bookingColumns + `)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
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
			updated_at = ?, commerce = ?
		WHERE account_id = ? AND id = ? AND status = ?`
)

// CreateBooking implements skygate.BookingStore: the idempotency key, the booking and
// its events in one transaction. rec.CreatedAt is the "now" against which an existing
// record of the key counts as expired.
func (s *Store) CreateBooking(ctx context.Context, rec *skygate.IdempotencyRecord, b *skygate.Booking, events []*skygate.Event) (*skygate.IdempotencyRecord, error) {
	sqlstore.NormaliseBooking(b)
	row, err := sqlstore.BookingArgs(s.db, b)
	if err != nil {
		return nil, s.db.Interpret(sqlstore.Outcome{Op: "create booking"}, err)
	}
	recArgs, err := sqlstore.IdempotencyArgs(s.db, rec)
	if err != nil {
		return nil, s.db.Interpret(sqlstore.Outcome{Op: "create booking"}, err)
	}
	var replay *skygate.IdempotencyRecord
	err = s.inTx(ctx, func(tx *sqlstore.Tx) error {
		var err error
		if replay, err = sqlstore.ClaimKey(ctx, s.db, keySQL, tx, rec, recArgs); err != nil || replay != nil {
			// The key is taken: answer with the stored record and write nothing.
			return err
		}
		if _, err := tx.ExecContext(ctx, insertBooking, row...); err != nil {
			return err
		}
		if err := insertEvents(ctx, tx, events); err != nil {
			return err
		}
		if !sqlstore.HasCommerce(b) {
			return nil
		}
		return s.commerce().Created(ctx, tx, b)
	})
	if err != nil {
		return nil, s.db.Interpret(sqlstore.Outcome{
			Op:       "create booking",
			Conflict: "a booking with this id already exists",
			NotFound: sqlstore.AccountNotFound,
		}, err)
	}
	return replay, nil
}

// Booking implements skygate.BookingStore.
func (s *Store) Booking(ctx context.Context, accountID, bookingID string) (*skygate.Booking, error) {
	return sqlstore.Get(ctx, s.db, sqlstore.Outcome{Op: "get booking", NotFound: sqlstore.BookingNotFound},
		s.db.ScanBooking, selectBooking, accountID, bookingID)
}

// BookingAdmin implements skygate.BookingStore. Admin only: it ignores the account.
func (s *Store) BookingAdmin(ctx context.Context, bookingID string) (*skygate.Booking, error) {
	return sqlstore.Get(ctx, s.db, sqlstore.Outcome{Op: "get booking (admin)", NotFound: sqlstore.BookingNotFound},
		s.db.ScanBooking, selectBookingAdmin, bookingID)
}

// ListBookings implements skygate.BookingStore. A Limit of zero or less returns every
// booking after Offset.
func (s *Store) ListBookings(ctx context.Context, accountID string, status skygate.BookingStatus, p skygate.Page) ([]*skygate.Booking, int, error) {
	if status != "" {
		return sqlstore.ListPage(ctx, s.db, "list bookings", s.db.ScanBooking, listBookingsByStatus, countBookingsByStatus, p, accountID, string(status))
	}
	return sqlstore.ListPage(ctx, s.db, "list bookings", s.db.ScanBooking, listBookings, countBookings, p, accountID)
}

// TransitionBooking implements skygate.BookingStore.
func (s *Store) TransitionBooking(ctx context.Context, accountID, bookingID string, t skygate.Trigger, now time.Time, apply skygate.BookingApply) (*skygate.Booking, error) {
	return sqlstore.TransitionBooking(ctx, s.db, s.writeTransitions, "transition booking", nil, t, now, apply, selectBooking, accountID, bookingID)
}

// TransitionBookingAdmin implements skygate.BookingStore. Admin only: it ignores the
// account.
func (s *Store) TransitionBookingAdmin(ctx context.Context, bookingID string, t skygate.Trigger, now time.Time, apply skygate.BookingApply, audit *skygate.AuditEvent) (*skygate.Booking, error) {
	return sqlstore.TransitionBookingAdmin(ctx, s.db, s.writeTransitions, audit, t, now, apply, selectBookingAdmin, bookingID)
}

// ClaimBookings implements skygate.BookingStore.
func (s *Store) ClaimBookings(ctx context.Context, from skygate.BookingStatus, t skygate.Trigger, now time.Time, limit int, apply skygate.BookingApply) (int, error) {
	return sqlstore.ClaimBookings(ctx, s.db, s.writeTransitions, claimPending, claimIssued, from, t, now, limit, apply)
}

// writeTransitions is sqlstore.WriteTransitions, one statement (updateBooking) a
// booking.
func (s *Store) writeTransitions(ctx context.Context, tx *sqlstore.Tx, before, after []*skygate.Booking) error {
	for i, b := range before {
		args, err := sqlstore.TransitionArgs(s.db, b, after[i])
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, updateBooking, args...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n != 1 {
			return fmt.Errorf("booking %s changed under the writer", b.ID)
		}
	}
	return s.commerce().Changed(ctx, tx, before, after)
}
