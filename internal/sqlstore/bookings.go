package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/skygate/skygate"
)

// The flows of bookings, their transitions and their events.

// Public messages of a missing booking or event, including one of another account.
const (
	BookingNotFound = "booking not found"
	EventNotFound   = "event not found"
)

// claimsPerTx bounds the bookings ClaimBookings moves in one transaction.
const claimsPerTx = 32

// ScanBooking reads a booking as ScanBooking does, with db's sealer.
func (db *DB) ScanBooking(row Scanner) (*skygate.Booking, error) { return ScanBooking(db.Sealer, row) }

// BookingArgs returns the arguments of the columns ScanBooking reads for a normalised
// booking: the passengers' names in clear and the passengers whole sealed.
func BookingArgs(db *DB, b *skygate.Booking) ([]any, error) {
	history, err := JSONText(b.StatusHistory)
	if err != nil {
		return nil, err
	}
	flight, err := JSONText(b.Flight)
	if err != nil {
		return nil, err
	}
	names, err := JSONText(skygate.PassengerNames(b.Passengers))
	if err != nil {
		return nil, err
	}
	passengerData, err := sealPassengers(db.Sealer, b)
	if err != nil {
		return nil, err
	}
	code, payload, from, until := passArgs(db, b.Pass)
	commerce, err := commerceArg(b)
	if err != nil {
		return nil, err
	}
	return []any{b.ID, b.AccountID, b.ClientID, string(b.Status), b.FastTrackID, b.ServiceDate,
		flight, names, b.PartnerReference, db.NullTime(b.ConfirmBefore), history, code, payload, from, until,
		db.Time(b.CreatedAt), db.Time(b.UpdatedAt), passengerData, db.NullTime(b.PersonalDataRemovedAt),
		b.Livemode, commerce}, nil
}

// passArgs returns the pass columns of p: NULL for no pass.
func passArgs(db *DB, p *skygate.Pass) (code, payload, validFrom, validUntil any) {
	if p == nil {
		return nil, nil, nil, nil
	}
	return p.Code, p.Payload, db.Time(p.ValidFrom), db.Time(p.ValidUntil)
}

// nextBooking moves before by t at now, apply run on it, and returns the booking
// after, normalised, and the events of the transition.
func nextBooking(before *skygate.Booking, t skygate.Trigger, now time.Time, apply skygate.BookingApply) (*skygate.Booking, []*skygate.Event, error) {
	next, err := skygate.Transition(before.Status, t)
	if err != nil {
		return nil, nil, err
	}
	now = UTC(now)
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
	NormaliseBooking(after)
	return after, events, nil
}

// TransitionArgs returns the arguments of a transition's write of after: status,
// confirm_before, status_history, pass_code, pass_payload, pass_valid_from,
// pass_valid_until, updated_at, commerce, then account_id, id and the status of
// before, which the write must match (a compare-and-swap).
func TransitionArgs(db *DB, before, after *skygate.Booking) ([]any, error) {
	history, err := JSONText(after.StatusHistory)
	if err != nil {
		return nil, err
	}
	code, payload, from, until := passArgs(db, after.Pass)
	commerce, err := commerceArg(after)
	if err != nil {
		return nil, err
	}
	return []any{string(after.Status), db.NullTime(after.ConfirmBefore), history, code, payload, from, until,
		db.Time(after.UpdatedAt), commerce, before.AccountID, before.ID, string(before.Status)}, nil
}

// WriteTransitions writes, inside tx, which read them, the bookings before as after,
// element by element, or fails when one of them changed since it was read.
type WriteTransitions func(ctx context.Context, tx *Tx, before, after []*skygate.Booking) error

// TransitionBooking moves the booking that read returns (with args; it locks the row
// where the engine has concurrent writers) by t at now, apply run on it, and writes it
// with write, its events and audit's record, if any, in one transaction.
func TransitionBooking(ctx context.Context, db *DB, write WriteTransitions, op string, audit *skygate.AuditEvent, t skygate.Trigger, now time.Time, apply skygate.BookingApply, read string, args ...any) (*skygate.Booking, error) {
	var out *skygate.Booking
	err := db.InTx(ctx, func(tx *Tx) error {
		before, err := db.ScanBooking(tx.QueryRowContext(ctx, read, args...))
		if err != nil {
			return err
		}
		after, events, err := nextBooking(before, t, now, apply)
		if err != nil {
			return err
		}
		if err := write(ctx, tx, []*skygate.Booking{before}, []*skygate.Booking{after}); err != nil {
			return err
		}
		if err := db.Events(ctx, tx, events); err != nil {
			return err
		}
		out = after
		return db.Audit(ctx, tx, audit)
	})
	if err != nil {
		return nil, db.Interpret(Outcome{Op: op, NotFound: BookingNotFound}, err)
	}
	return out, nil
}

// TransitionBookingAdmin is TransitionBooking for an employee, which ignores the
// account: read takes the booking id only, and audit's record is required.
func TransitionBookingAdmin(ctx context.Context, db *DB, write WriteTransitions, audit *skygate.AuditEvent, t skygate.Trigger, now time.Time, apply skygate.BookingApply, read, bookingID string) (*skygate.Booking, error) {
	const op = "transition booking (admin)"
	if err := Audited(op, audit); err != nil {
		return nil, err
	}
	return TransitionBooking(ctx, db, write, op, audit, t, now, apply, read, bookingID)
}

// ClaimBookings is skygate.BookingStore's ClaimBookings: pending and issued read
// (now, limit) the oldest due bookings of their status, locking them where the engine
// has concurrent claimers; write writes their transitions. Up to claimsPerTx bookings
// share a transaction.
func ClaimBookings(ctx context.Context, db *DB, write WriteTransitions, pending, issued string, from skygate.BookingStatus, t skygate.Trigger, now time.Time, limit int, apply skygate.BookingApply) (int, error) {
	var query string
	switch from {
	case skygate.BookingPending:
		query = pending
	case skygate.BookingIssued:
		query = issued
	default:
		return 0, skygate.Errorf(skygate.CodeValidation, "bookings in status %s are never due", from)
	}
	return inBatches(limit, claimsPerTx, func(n int) (int, error) {
		moved := 0
		err := db.InTx(ctx, func(tx *Tx) error {
			due, err := QueryAll(ctx, tx, db.ScanBooking, query, db.Time(now), n)
			if err != nil {
				return err
			}
			var (
				after  = make([]*skygate.Booking, len(due))
				events []*skygate.Event
			)
			for i, before := range due {
				var evs []*skygate.Event
				if after[i], evs, err = nextBooking(before, t, now, apply); err != nil {
					return err
				}
				events = append(events, evs...)
			}
			if err := write(ctx, tx, due, after); err != nil {
				return err
			}
			moved = len(due)
			return db.Events(ctx, tx, events)
		})
		if err != nil {
			return 0, db.Interpret(Outcome{Op: "claim bookings"}, err)
		}
		return moved, nil
	})
}

// EventBody makes e's time UTC, gives it empty data when it has none and returns the
// body of its webhook deliveries: the event's envelope, encoded once for every attempt.
func EventBody(e *skygate.Event) ([]byte, error) {
	e.CreatedAt = UTC(e.CreatedAt)
	if e.Data == nil {
		e.Data = []byte("{}")
	}
	body, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("encode event %s: %w", e.ID, err)
	}
	return body, nil
}
