package postgres

import (
	"context"
	"database/sql"
	"errors"
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

// Every tenant statement names the account.
const (
	// createBooking claims the idempotency key, inserts the booking, its events in
	// feed order and their webhook deliveries in one statement, all or nothing. The key's
	// INSERT … ON CONFLICT waits for a concurrent transaction holding the same key and
	// then writes nothing; a record that has expired by the new one's creation is
	// replaced. DO UPDATE, unlike DO NOTHING, locks the conflicting row even when its
	// WHERE is false, so replays of one key queue behind each other. Every later part
	// reads k, so nothing is written when a live record holds the key. The deliveries
	// join the account's active subscription, and follow its filter, as
	// insertEventsWithDeliveries does. It returns the keys claimed (0 or 1) and the
	// deliveries written.
	createBooking = `WITH k AS (
			INSERT INTO idempotency_records (account_id, operation, idem_key, fingerprint,
				status_code, resource_id, body, created_at, expires_at, sealed)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, true)
			ON CONFLICT (account_id, operation, idem_key) DO UPDATE SET
				fingerprint = excluded.fingerprint, status_code = excluded.status_code,
				resource_id = excluded.resource_id, body = excluded.body,
				created_at = excluded.created_at, expires_at = excluded.expires_at,
				sealed = excluded.sealed
			WHERE idempotency_records.expires_at <= excluded.created_at
			RETURNING 1
		),
		b AS (
			INSERT INTO bookings (` + bookingColumns + `)
			SELECT $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24,
				$25, $26, $27, $28, $29, $30
			FROM k
		),
		v AS (
			SELECT * FROM unnest($31::text[], $32::text[], $33::text[], $34::text[],
				$35::timestamptz[], $36::text[], $37::text[], $38::text[],
				$39::text[], $40::boolean[])
				WITH ORDINALITY AS v (id, account_id, type, data, created_at, delivery_id, body,
					ordering_key, api_version, livemode, n)
			WHERE EXISTS (SELECT FROM k)
		),
		e AS (
			INSERT INTO events (id, account_id, type, data, created_at, ordering_key,
				api_version, livemode)
			SELECT id, account_id, type, data, created_at, ordering_key,
				api_version, livemode FROM v ORDER BY n
			RETURNING id, seq
		),
		d AS (
			INSERT INTO webhook_deliveries (id, subscription_id, account_id, event_id, event_type,
				body, status, attempts, next_attempt_at, last_status_code, last_error,
				created_at, updated_at, ordering_key, event_seq)
			SELECT v.delivery_id, w.id, v.account_id, v.id, v.type, v.body, 'pending', 0,
				v.created_at, 0, '', v.created_at, v.created_at, v.ordering_key, e.seq
			FROM v JOIN e ON e.id = v.id
				JOIN webhook_subscriptions w ON w.account_id = v.account_id AND w.active
			-- The subscription's filter (skygate.WebhookSubscription.Accepts).
			WHERE v.type <> ` + noticeType + `
				AND (w.event_types = '[]'::jsonb OR w.event_types ? v.type)
			FOR KEY SHARE OF w
			ON CONFLICT (subscription_id, event_id) DO NOTHING
			RETURNING 1
		)
		SELECT (SELECT count(*) FROM k), (SELECT count(*) FROM d)`

	selectBooking      = `SELECT ` + bookingColumns + ` FROM bookings WHERE account_id = $1 AND id = $2`
	selectBookingAdmin = `SELECT ` + bookingColumns + ` FROM bookings WHERE id = $1`
	lockBooking        = `SELECT ` + bookingColumns + ` FROM bookings
		WHERE account_id = $1 AND id = $2 FOR UPDATE`
	lockBookingAdmin = `SELECT ` + bookingColumns + ` FROM bookings WHERE id = $1 FOR UPDATE`
	listBookings     = `SELECT ` + bookingColumns + ` FROM bookings
		WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`
	countBookings        = `SELECT count(*) FROM bookings WHERE account_id = $1`
	listBookingsByStatus = `SELECT ` + bookingColumns + ` FROM bookings
		WHERE account_id = $1 AND status = $2 ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`
	countBookingsByStatus = `SELECT count(*) FROM bookings WHERE account_id = $1 AND status = $2`

	// The statuses are literals: the partial indexes bookings_pending_created and
	// bookings_issued_confirm_before serve a query only when its condition names them.
	claimPending = `SELECT ` + bookingColumns + ` FROM bookings
		WHERE status = 'Pending' AND created_at <= $1 ORDER BY created_at, id LIMIT $2
		FOR UPDATE SKIP LOCKED`
	claimIssued = `SELECT ` + bookingColumns + ` FROM bookings
		WHERE status = 'Issued' AND confirm_before < $1 ORDER BY confirm_before, id LIMIT $2
		FOR UPDATE SKIP LOCKED`

	// updateBookings writes the transitions of bookings given as arrays of their new
	// columns, each joined to its row by account, id and the status read (a
	// compare-and-swap).
	updateBookings = `UPDATE bookings b SET status = v.status, confirm_before = v.confirm_before,
			status_history = v.status_history, pass_code = v.pass_code,
			pass_payload = v.pass_payload, pass_valid_from = v.pass_valid_from,
			pass_valid_until = v.pass_valid_until, updated_at = v.updated_at,
			commerce = v.commerce
		FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::text[],
			$6::timestamptz[], $7::timestamptz[], $8::timestamptz[], $9::text[], $10::text[],
			$11::text[], $12::text[])
			AS v (status, confirm_before, status_history, pass_code, pass_payload,
				pass_valid_from, pass_valid_until, updated_at, commerce, account_id, id, old_status)
		WHERE b.account_id = v.account_id AND b.id = v.id AND b.status = v.old_status`
)

// createRetries bounds how often CreateBooking runs again when the key was held by a
// record that is gone by the time it reads it (purged as expired in between).
const createRetries = 3

// CreateBooking implements skygate.BookingStore in one statement (createBooking).
// rec.CreatedAt is the "now" against which an existing record of the key counts as
// expired.
func (s *Store) CreateBooking(ctx context.Context, rec *skygate.IdempotencyRecord, b *skygate.Booking, events []*skygate.Event) (*skygate.IdempotencyRecord, error) {
	replay, err := s.createBooking(ctx, rec, b, events)
	if err != nil {
		return nil, s.db.Interpret(sqlstore.Outcome{
			Op:       "create booking",
			Conflict: "a booking with this id already exists",
			NotFound: sqlstore.AccountNotFound,
		}, err)
	}
	return replay, nil
}

func (s *Store) createBooking(ctx context.Context, rec *skygate.IdempotencyRecord, b *skygate.Booking, events []*skygate.Event) (*skygate.IdempotencyRecord, error) {
	sqlstore.NormaliseBooking(b)
	row, err := sqlstore.BookingArgs(s.db, b)
	if err != nil {
		return nil, err
	}
	recArgs, err := sqlstore.IdempotencyArgs(s.db, rec)
	if err != nil {
		return nil, err
	}
	ev, err := eventArgs(events)
	if err != nil {
		return nil, err
	}
	args := append(append(recArgs, row...), ev...)
	for range createRetries {
		var claimed bool
		if sqlstore.HasCommerce(b) {
			claimed, err = s.createWithCommerce(ctx, b, events, args)
		} else {
			claimed, err = s.createPlain(ctx, b, events, args)
		}
		if err != nil || claimed {
			return nil, err
		}
		stored, err := s.db.ScanIdempotency(s.pool.QueryRowContext(ctx, selectIdempotency, rec.AccountID, rec.Operation, rec.Key))
		if !errors.Is(err, sql.ErrNoRows) {
			return stored, err
		}
	}
	return nil, fmt.Errorf("idempotency key %q: held by a record that was gone when read, %d times", rec.Key, createRetries)
}

// createPlain runs createBooking alone: a booking without commerce needs nothing else,
// so it commits in one round trip. claimed is false when a live record holds the key.
func (s *Store) createPlain(ctx context.Context, b *skygate.Booking, events []*skygate.Event, args []any) (claimed bool, err error) {
	var keys, delivered int
	if err := s.pool.QueryRowContext(ctx, createBooking, args...).Scan(&keys, &delivered); err != nil {
		return false, err
	}
	if keys == 0 {
		return false, nil
	}
	s.deliveriesCommitted(delivered)
	if len(events) > 0 {
		s.eventsCommitted([]string{b.AccountID})
	}
	return true, nil
}

// createWithCommerce runs createBooking and then the commerce steps (sqlstore.Commerce)
// in one transaction, so that the booking, its quote, its money and its places commit
// together or not at all. claimed is false when a live record holds the key; then nothing is written.
func (s *Store) createWithCommerce(ctx context.Context, b *skygate.Booking, events []*skygate.Event, args []any) (claimed bool, err error) {
	err = s.inTx(ctx, func(tx *sqlstore.Tx) error {
		var keys, delivered int
		if err := tx.QueryRowContext(ctx, createBooking, args...).Scan(&keys, &delivered); err != nil {
			return err
		}
		if claimed = keys > 0; !claimed {
			return nil
		}
		tx.Delivered += delivered
		tx.WroteEvents(events)
		return s.commerce().Created(ctx, tx, b)
	})
	return claimed, err
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

// TransitionBooking implements skygate.BookingStore. The booking's row is locked from
// its read to the commit.
func (s *Store) TransitionBooking(ctx context.Context, accountID, bookingID string, t skygate.Trigger, now time.Time, apply skygate.BookingApply) (*skygate.Booking, error) {
	return sqlstore.TransitionBooking(ctx, s.db, s.writeTransitions, "transition booking", nil, t, now, apply, lockBooking, accountID, bookingID)
}

// TransitionBookingAdmin implements skygate.BookingStore. Admin only: it ignores the
// account.
func (s *Store) TransitionBookingAdmin(ctx context.Context, bookingID string, t skygate.Trigger, now time.Time, apply skygate.BookingApply, audit *skygate.AuditEvent) (*skygate.Booking, error) {
	return sqlstore.TransitionBookingAdmin(ctx, s.db, s.writeTransitions, audit, t, now, apply, lockBookingAdmin, bookingID)
}

// ClaimBookings implements skygate.BookingStore. Claimers skip the rows others hold,
// and a transaction's bookings are written in one statement (updateBookings).
func (s *Store) ClaimBookings(ctx context.Context, from skygate.BookingStatus, t skygate.Trigger, now time.Time, limit int, apply skygate.BookingApply) (int, error) {
	return sqlstore.ClaimBookings(ctx, s.db, s.writeTransitions, claimPending, claimIssued, from, t, now, limit, apply)
}

// writeTransitions is sqlstore.WriteTransitions in one statement, updateBookings. The
// caller holds the rows' locks, so each must still be in the status it was read in.
func (s *Store) writeTransitions(ctx context.Context, tx *sqlstore.Tx, before, after []*skygate.Booking) error {
	if len(before) == 0 {
		return nil
	}
	var u bookingUpdates
	for i, b := range before {
		if err := u.add(b, after[i]); err != nil {
			return err
		}
	}
	res, err := tx.ExecContext(ctx, updateBookings, u.status, u.confirmBefore, u.history,
		u.passCode, u.passPayload, u.passFrom, u.passUntil, u.updated, u.commerce, u.accounts, u.ids, u.previousStatus)
	if err != nil {
		return err
	}
	got, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if got != int64(len(u.ids)) {
		return fmt.Errorf("%d of %d locked bookings changed under their lock", int64(len(u.ids))-got, len(u.ids))
	}
	return s.commerce().Changed(ctx, tx, before, after)
}

// bookingUpdates holds the arguments of updateBookings, one element a booking.
type bookingUpdates struct {
	status, history               []string
	confirmBefore                 []*time.Time
	passCode, passPayload         []*string
	passFrom, passUntil, updated  []*time.Time
	commerce                      []*string
	accounts, ids, previousStatus []string
}

// add adds the update of before to after, a normalised booking.
func (u *bookingUpdates) add(before, after *skygate.Booking) error {
	history, err := sqlstore.JSONText(after.StatusHistory)
	if err != nil {
		return err
	}
	commerce, err := sqlstore.CommerceText(after)
	if err != nil {
		return err
	}
	var (
		code, payload *string
		from, until   *time.Time
	)
	if p := after.Pass; p != nil {
		code, payload, from, until = &p.Code, &p.Payload, &p.ValidFrom, &p.ValidUntil
	}
	u.status = append(u.status, string(after.Status))
	u.confirmBefore = append(u.confirmBefore, after.ConfirmBefore)
	u.history = append(u.history, history)
	u.passCode = append(u.passCode, code)
	u.passPayload = append(u.passPayload, payload)
	u.passFrom = append(u.passFrom, from)
	u.passUntil = append(u.passUntil, until)
	u.updated = append(u.updated, &after.UpdatedAt)
	u.commerce = append(u.commerce, commerce)
	u.accounts = append(u.accounts, before.AccountID)
	u.ids = append(u.ids, before.ID)
	u.previousStatus = append(u.previousStatus, string(before.Status))
	return nil
}
