package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/skygate/skygate"
)

var _ skygate.BookingStore = (*Store)(nil)

const bookingColumns = `id, account_id, client_id, status, fast_track_id, service_date, flight,
	passengers, partner_reference, confirm_before, status_history, pass_code, pass_payload,
	pass_valid_from, pass_valid_until, created_at, updated_at, passenger_data,
	personal_data_removed_at`

// statusArg is a status argument compared with bookings.status in a query the planner
// plans (not a primary-key lookup). SQLite checks a bare argument against the literal
// statuses of the partial indexes of migration 00008 and then marks the statement to
// be compiled again whenever it is bound, as with a bare LIMIT (limitArg); behind the
// CAST it does not. The listing by status has no use for those indexes.
const statusArg = `CAST(? AS TEXT)`

// Every tenant statement names the account. The claim statements come in two forms:
// engines with concurrent writers lock the claimed row and skip rows that other
// claimers hold; SQLite's single writer needs no row locks (and has no FOR UPDATE).
var (
	qInsertBooking = newStmt(`INSERT INTO bookings (` + bookingColumns + `)
		VALUES (` + placeholders(strings.Count(bookingColumns, ",")+1) + `)`)
	qBooking = newStmt(`SELECT ` + bookingColumns + ` FROM bookings
		WHERE account_id = ? AND id = ?`)
	qBookingAdmin = newStmt(`SELECT ` + bookingColumns + ` FROM bookings WHERE id = ?`)
	qListBookings = newStmt(`SELECT ` + bookingColumns + ` FROM bookings
		WHERE account_id = ? ORDER BY created_at DESC, id DESC ` + limitArg + ` OFFSET ?`)
	qCountBookings       = newStmt(`SELECT COUNT(*) FROM bookings WHERE account_id = ?`)
	qListBookingsByState = newStmt(`SELECT ` + bookingColumns + ` FROM bookings
		WHERE account_id = ? AND status = ` + statusArg + ` ORDER BY created_at DESC, id DESC ` + limitArg + ` OFFSET ?`)
	qCountBookingsByState = newStmt(`SELECT COUNT(*) FROM bookings WHERE account_id = ? AND status = ` + statusArg)
	// The status condition makes the update a compare-and-swap on the status read.
	qUpdateBooking = newStmt(updateBookingSQL())

	// The statuses are literals: the partial indexes bookings_pending_created and
	// bookings_issued_confirm_before serve a query only when its condition names them.
	claimPending = `SELECT ` + bookingColumns + ` FROM bookings
		WHERE status = '` + string(skygate.BookingPending) + `' AND created_at <= ? ORDER BY created_at, id ` + limitArg
	claimIssued = `SELECT ` + bookingColumns + ` FROM bookings
		WHERE status = '` + string(skygate.BookingIssued) + `' AND confirm_before < ? ORDER BY confirm_before, id ` + limitArg
	qClaimPending       = newStmt(claimPending)
	qClaimIssued        = newStmt(claimIssued)
	qClaimPendingLocked = newStmt(claimPending + ` FOR UPDATE SKIP LOCKED`)
	qClaimIssuedLocked  = newStmt(claimIssued + ` FOR UPDATE SKIP LOCKED`)
)

// bookingNotFound is the public message of a missing booking, including one of
// another account.
const bookingNotFound = "booking not found"

// maxTransitionAttempts bounds the re-reads of a booking that keeps changing under a
// transition; each attempt follows a committed change, so a few always suffice.
const maxTransitionAttempts = 16

// scanBooking reads one row of bookingColumns, its sealed passengers opened.
func (s *Store) scanBooking(row scanner) (*skygate.Booking, error) { return ScanBooking(s.sealer, row) }

// ScanBooking reads id, account_id, client_id, status, fast_track_id, service_date,
// flight, passengers, partner_reference, confirm_before, status_history, pass_code,
// pass_payload, pass_valid_from, pass_valid_until, created_at, updated_at,
// passenger_data, personal_data_removed_at, opening the sealed passengers with sealer.
func ScanBooking(sealer skygate.Sealer, row Scanner) (*skygate.Booking, error) {
	var (
		b                    skygate.Booking
		status               string
		code, payload        sql.NullString
		validFrom, validUtil *time.Time
		passengerData        []byte
	)
	err := row.Scan(&b.ID, &b.AccountID, &b.ClientID, &status, &b.FastTrackID, &b.ServiceDate,
		flightCol{&b.Flight}, passengersCol{&b.Passengers}, &b.PartnerReference, nullTimeCol{&b.ConfirmBefore},
		historyCol{&b.StatusHistory}, &code, &payload, nullTimeCol{&validFrom}, nullTimeCol{&validUtil},
		timeCol{&b.CreatedAt}, timeCol{&b.UpdatedAt}, &passengerData, nullTimeCol{&b.PersonalDataRemovedAt})
	if err != nil {
		return nil, err
	}
	if passengerData != nil {
		if err := OpenPassengers(sealer, &b, passengerData); err != nil {
			return nil, err
		}
	}
	b.Status = skygate.BookingStatus(status)
	if code.Valid {
		b.Pass = &skygate.Pass{Code: code.String, Payload: payload.String}
		if validFrom != nil {
			b.Pass.ValidFrom = *validFrom
		}
		if validUtil != nil {
			b.Pass.ValidUntil = *validUtil
		}
	}
	return &b, nil
}

// normaliseBooking brings b's times to the stored precision and its lists to non-nil,
// so that what the caller holds equals what a later read returns.
func normaliseBooking(b *skygate.Booking) {
	b.CreatedAt, b.UpdatedAt = utc(b.CreatedAt), utc(b.UpdatedAt)
	if b.ConfirmBefore != nil {
		t := utc(*b.ConfirmBefore)
		b.ConfirmBefore = &t
	}
	if b.PersonalDataRemovedAt != nil {
		t := utc(*b.PersonalDataRemovedAt)
		b.PersonalDataRemovedAt = &t
	}
	if b.Passengers == nil {
		b.Passengers = []skygate.Passenger{}
	}
	if b.StatusHistory == nil {
		b.StatusHistory = []skygate.StatusChange{}
	}
	for i := range b.StatusHistory {
		b.StatusHistory[i].At = utc(b.StatusHistory[i].At)
	}
	if b.Pass != nil {
		b.Pass.ValidFrom, b.Pass.ValidUntil = utc(b.Pass.ValidFrom), utc(b.Pass.ValidUntil)
	}
}

// passArgs returns the stored form of the pass columns: NULL for no pass.
func (s *Store) passArgs(p *skygate.Pass) (code, payload, validFrom, validUntil any) {
	if p == nil {
		return nil, nil, nil, nil
	}
	return p.Code, p.Payload, s.time(p.ValidFrom), s.time(p.ValidUntil)
}

// bookingRow returns the arguments of qInsertBooking for a normalised booking: the
// passengers' names in clear and the passengers whole sealed (sealed.go). It runs
// before the transaction: encoding the JSON columns and sealing is work the one SQLite
// writer need not do while every other write waits for it.
func (s *Store) bookingRow(b *skygate.Booking) ([]any, error) {
	history, err := historyText(b.StatusHistory)
	if err != nil {
		return nil, err
	}
	passengerData, err := SealPassengers(s.sealer, b)
	if err != nil {
		return nil, err
	}
	code, payload, from, until := s.passArgs(b.Pass)
	return []any{b.ID, b.AccountID, b.ClientID, string(b.Status), b.FastTrackID, b.ServiceDate,
		string(b.Flight.AppendJSON(nil)), string(skygate.AppendPassengersJSON(nil, skygate.PassengerNames(b.Passengers))),
		b.PartnerReference, s.nullTime(b.ConfirmBefore), history, code, payload, from, until,
		s.time(b.CreatedAt), s.time(b.UpdatedAt), passengerData, s.nullTime(b.PersonalDataRemovedAt)}, nil
}

// historyText is the status_history column of h: what jsonText writes, without
// reflection.
func historyText(h []skygate.StatusChange) (string, error) {
	b, err := skygate.AppendStatusHistoryJSON(nil, h)
	if err != nil {
		return "", fmt.Errorf("sqlstore: encode JSON: %w", err)
	}
	return string(b), nil
}

// Booking implements skygate.BookingStore.
func (s *Store) Booking(ctx context.Context, accountID, bookingID string) (*skygate.Booking, error) {
	b, err := s.scanBooking(s.read.QueryRowContext(ctx, s.q(qBooking), accountID, bookingID))
	if err != nil {
		return nil, s.interpret(outcome{op: "get booking", notFound: bookingNotFound}, err)
	}
	return b, nil
}

// BookingAdmin implements skygate.BookingStore. Admin only: it ignores the account.
func (s *Store) BookingAdmin(ctx context.Context, bookingID string) (*skygate.Booking, error) {
	b, err := s.scanBooking(s.read.QueryRowContext(ctx, s.q(qBookingAdmin), bookingID))
	if err != nil {
		return nil, s.interpret(outcome{op: "get booking (admin)", notFound: bookingNotFound}, err)
	}
	return b, nil
}

// ListBookings implements skygate.BookingStore. A Limit of zero or less returns every
// booking after Offset.
func (s *Store) ListBookings(ctx context.Context, accountID string, status skygate.BookingStatus, p skygate.Page) ([]*skygate.Booking, int, error) {
	if status != "" {
		return listPage(ctx, s, "list bookings", s.scanBooking, s.q(qListBookingsByState), s.q(qCountBookingsByState), p, accountID, string(status))
	}
	return listPage(ctx, s, "list bookings", s.scanBooking, s.q(qListBookings), s.q(qCountBookings), p, accountID)
}

// TransitionBooking implements skygate.BookingStore.
func (s *Store) TransitionBooking(ctx context.Context, accountID, bookingID string, t skygate.Trigger, now time.Time, apply skygate.BookingApply) (*skygate.Booking, error) {
	return s.transitionOne(ctx, "transition booking", t, now, apply, nil, func(tx *sql.Tx) *sql.Row {
		return tx.QueryRowContext(ctx, s.q(qBooking), accountID, bookingID)
	})
}

// TransitionBookingAdmin implements skygate.BookingStore. Admin only: it ignores the
// account.
func (s *Store) TransitionBookingAdmin(ctx context.Context, bookingID string, t skygate.Trigger, now time.Time, apply skygate.BookingApply, audit *skygate.AuditEvent) (*skygate.Booking, error) {
	return s.transitionOne(ctx, "transition booking (admin)", t, now, apply, audit, func(tx *sql.Tx) *sql.Row {
		return tx.QueryRowContext(ctx, s.q(qBookingAdmin), bookingID)
	})
}

// transitionOne reads a booking with read and applies t to it in one transaction,
// re-reading after a concurrent change (possible on PostgreSQL, where the read takes
// no lock; SQLite's writer transaction already excludes other writers). The audit
// record, if any, is committed with the transition.
func (s *Store) transitionOne(ctx context.Context, op string, t skygate.Trigger, now time.Time, apply skygate.BookingApply, audit *skygate.AuditEvent, read func(tx *sql.Tx) *sql.Row) (*skygate.Booking, error) {
	var out *skygate.Booking
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		for range maxTransitionAttempts {
			before, err := s.scanBooking(read(tx))
			if err != nil {
				return err
			}
			after, events, written, err := s.applyTransition(ctx, tx, before, t, now, apply)
			if err != nil {
				return err
			}
			if written {
				out = after
				if err := s.insertEvents(ctx, tx, events); err != nil {
					return err
				}
				return s.appendAudit(ctx, tx, audit)
			}
		}
		return errors.New("the booking kept changing; giving up")
	})
	if err != nil {
		return nil, s.interpret(outcome{op: op, notFound: bookingNotFound}, err)
	}
	return out, nil
}

// ClaimBookings implements skygate.BookingStore.
func (s *Store) ClaimBookings(ctx context.Context, from skygate.BookingStatus, t skygate.Trigger, now time.Time, limit int, apply skygate.BookingApply) (int, error) {
	var query string
	locked := s.concurrentWriters()
	switch {
	case from == skygate.BookingPending && locked:
		query = s.q(qClaimPendingLocked)
	case from == skygate.BookingPending:
		query = s.q(qClaimPending)
	case from == skygate.BookingIssued && locked:
		query = s.q(qClaimIssuedLocked)
	case from == skygate.BookingIssued:
		query = s.q(qClaimIssued)
	default:
		return 0, skygate.Errorf(skygate.CodeValidation, "bookings in status %s are never due", from)
	}
	n := 0
	for limit <= 0 || n < limit {
		// Up to claimsPerTx bookings share a transaction: a backlog drains at many
		// bookings per commit instead of one.
		perTx := claimsPerTx
		if limit > 0 {
			perTx = min(perTx, limit-n)
		}
		moved := 0
		err := s.inTx(ctx, func(tx *sql.Tx) error {
			moved = 0
			due, err := s.dueBookings(ctx, tx, query, now, perTx)
			if err != nil {
				return err
			}
			// One statement for the bookings, then one per maxEventsPerInsert events.
			var events []*skygate.Event
			args := make([]any, 0, len(due)*updateArgs)
			for _, before := range due {
				_, evs, a, err := s.transitioned(before, t, now, apply)
				if err != nil {
					return err
				}
				events = append(events, evs...)
				args = append(args, a...)
			}
			if err := s.updateClaimed(ctx, tx, len(due), args); err != nil {
				return err
			}
			moved = len(due)
			return s.insertEvents(ctx, tx, events)
		})
		if err != nil {
			return n, s.interpret(outcome{op: "claim bookings"}, err)
		}
		n += moved
		if moved < perTx {
			break
		}
	}
	return n, nil
}

// claimsPerTx bounds the bookings ClaimBookings moves in one transaction.
const claimsPerTx = 32

// transitionColumns are the columns a transition writes, in the order of its
// arguments (transitioned); the arguments go on with the row's account, its id and the
// status read. time marks a time column (Dialect.TimeType).
var transitionColumns = [...]struct {
	name string
	time bool
}{
	{"status", false}, {"confirm_before", true}, {"status_history", false}, {"pass_code", false},
	{"pass_payload", false}, {"pass_valid_from", true}, {"pass_valid_until", true}, {"updated_at", true},
}

// updateArgs is the number of arguments of one booking's update.
const updateArgs = len(transitionColumns) + 3

// updateBookingSQL is qUpdateBooking: one booking's transition.
func updateBookingSQL() string {
	set := make([]string, len(transitionColumns))
	for i, c := range transitionColumns {
		set[i] = c.name + " = ?"
	}
	return `UPDATE bookings SET ` + strings.Join(set, ", ") + ` WHERE account_id = ? AND id = ? AND status = ?`
}

// updateClaimed writes the transitions of n claimed bookings, args holding n ×
// updateArgs arguments in transitioned's order, with one statement instead of one a
// booking. The claim holds their rows (or the writer is alone), so each must still be in
// the status it was read in.
func (s *Store) updateClaimed(ctx context.Context, tx *sql.Tx, n int, args []any) error {
	if n == 0 {
		return nil
	}
	res, err := tx.ExecContext(ctx, s.claimUpdates[n], args...)
	if err != nil {
		return err
	}
	got, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if got != int64(n) {
		return fmt.Errorf("%d of %d claimed bookings changed under their lock", int64(n)-got, n)
	}
	return nil
}

// updateClaimedSQL is the "?" form of updateClaimed's statement for n bookings: a
// VALUES list of qUpdateBooking's arguments, joined to the rows by account, id and the
// status read (its compare-and-swap). The CASTs type the list's columns, which
// PostgreSQL cannot infer from parameters outside an INSERT; timeType is the engine's
// time column type (Dialect.TimeType).
func updateClaimedSQL(timeType string, n int) string {
	if n == 0 {
		return ""
	}
	var names, casts, set []string
	for _, c := range transitionColumns {
		typ := "TEXT"
		if c.time {
			typ = timeType
		}
		names = append(names, c.name)
		casts = append(casts, "CAST(? AS "+typ+")")
		set = append(set, c.name+" = v."+c.name)
	}
	names = append(names, "account_id", "id", "old_status")
	casts = append(casts, "CAST(? AS TEXT)", "CAST(? AS TEXT)", "CAST(? AS TEXT)")
	row := "(" + strings.Join(casts, ", ") + ")"
	return `WITH v (` + strings.Join(names, ", ") + `) AS (VALUES ` + commaList(row, n) + `)
		UPDATE bookings SET ` + strings.Join(set, ", ") + `
		FROM v WHERE bookings.account_id = v.account_id AND bookings.id = v.id AND bookings.status = v.old_status`
}

// dueBookings reads up to limit bookings with query (a claim statement) inside tx. It
// reads them all before the caller writes any, as a table must not change under an
// open cursor.
func (s *Store) dueBookings(ctx context.Context, tx *sql.Tx, query string, now time.Time, limit int) ([]*skygate.Booking, error) {
	rows, err := tx.QueryContext(ctx, query, s.time(now), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var due []*skygate.Booking
	for rows.Next() {
		b, err := s.scanBooking(rows)
		if err != nil {
			return nil, err
		}
		due = append(due, b)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return due, rows.Close()
}

// applyTransition computes and writes the transition of before inside tx, and returns
// the events of the transition, which the caller must insert in the same transaction
// (callers that move many bookings insert all their events with few statements).
// written is false, with no error, when the booking's status changed since it was read.
func (s *Store) applyTransition(ctx context.Context, tx *sql.Tx, before *skygate.Booking, t skygate.Trigger, now time.Time, apply skygate.BookingApply) (after *skygate.Booking, events []*skygate.Event, written bool, err error) {
	after, events, args, err := s.transitioned(before, t, now, apply)
	if err != nil {
		return nil, nil, false, err
	}
	res, err := tx.ExecContext(ctx, s.q(qUpdateBooking), args...)
	if err != nil {
		return nil, nil, false, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return nil, nil, false, err
	}
	return after, events, true, nil
}

// transitioned returns before moved by t at now (apply run on it), its events, and the
// arguments of its update: transitionColumns' values, then the row's account, id and
// status read (qUpdateBooking's order).
func (s *Store) transitioned(before *skygate.Booking, t skygate.Trigger, now time.Time, apply skygate.BookingApply) (after *skygate.Booking, events []*skygate.Event, args []any, err error) {
	next, err := skygate.Transition(before.Status, t)
	if err != nil {
		return nil, nil, nil, err
	}
	now = utc(now)
	after = before.Clone()
	after.Status = next
	after.UpdatedAt = now
	after.StatusHistory = append(after.StatusHistory, skygate.StatusChange{Status: next, At: now})
	if apply != nil {
		if events, err = apply(before, after); err != nil {
			return nil, nil, nil, err
		}
	}
	normaliseBooking(after)
	history, err := historyText(after.StatusHistory)
	if err != nil {
		return nil, nil, nil, err
	}
	code, payload, from, until := s.passArgs(after.Pass)
	return after, events, []any{string(after.Status), s.nullTime(after.ConfirmBefore), history, code, payload, from, until,
		s.time(after.UpdatedAt), before.AccountID, before.ID, string(before.Status)}, nil
}

// nullTimeCol scans a nullable time column into a *time.Time, nil for NULL.
type nullTimeCol struct{ t **time.Time }

func (c nullTimeCol) Scan(src any) error {
	if src == nil {
		*c.t = nil
		return nil
	}
	var t time.Time
	if err := (timeCol{&t}).Scan(src); err != nil {
		return err
	}
	*c.t = &t
	return nil
}

// nullTime returns the stored form of t, NULL for nil.
func (s *Store) nullTime(t *time.Time) any {
	if t == nil {
		return nil
	}
	return s.time(*t)
}
