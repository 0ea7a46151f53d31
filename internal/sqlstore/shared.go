package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/skygate/skygate"
)

// This file is what the engines use: the scanning of rows into domain types, the
// column scanners, and the mapping of driver errors to domain codes.

// Scanner is the part of *sql.Row and *sql.Rows that reads one row.
type Scanner interface {
	Scan(dest ...any) error
}

// Queryer is what *sql.DB and *sql.Tx share for reading rows.
type Queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// UTC is the form in which every time is stored and returned: UTC, truncated to the
// microsecond.
func UTC(t time.Time) time.Time { return utc(t) }

// TimeCol scans a time column into *t, in UTC.
func TimeCol(t *time.Time) sql.Scanner { return timeCol{t} }

// NullTimeCol scans a nullable time column into *t, nil for NULL.
func NullTimeCol(t **time.Time) sql.Scanner { return nullTimeCol{t} }

// JSONCol scans a JSON text column into the value v points to.
func JSONCol(v any) sql.Scanner { return jsonCol{v} }

// JSONText encodes v as the JSON text stored in a column.
func JSONText(v any) (string, error) { return jsonText(v) }

// NonNil returns b, or an empty slice for nil: NOT NULL blob columns reject the NULL
// that drivers send for a nil slice.
func NonNil(b []byte) []byte { return nonNil(b) }

// PageArgs returns the LIMIT and OFFSET of p: a Limit of zero or less is no limit, a
// negative Offset is zero.
func PageArgs(p skygate.Page) (limit, offset int64) { return pageArgs(p) }

// QueryAll runs query on db and scans every row with scan. The result is never nil, so
// an empty list encodes as [].
func QueryAll[T any](ctx context.Context, db Queryer, scan func(Scanner) (T, error), query string, args ...any) ([]T, error) {
	return queryAll(ctx, db, scan, query, args...)
}

// ScanAccount reads id, name, status, created_at, updated_at.
func ScanAccount(row Scanner) (*skygate.Account, error) { return scanAccount(row) }

// ScanApplication reads id, account_id, name, client_id, secret_hash, allowed_scopes,
// sandbox, client_cert_sha256, created_at, updated_at, token_generation,
// tokens_revoked_at, then extra destinations of the same row.
func ScanApplication(row Scanner, extra ...any) (*skygate.Application, error) {
	return scanApplication(row, extra...)
}

// ScanLoginCode reads code_hash, subject, email, name, roles, scopes, code_challenge,
// redirect_uri, created_at, expires_at, used_at.
func ScanLoginCode(row Scanner) (*skygate.LoginCode, error) { return scanLoginCode(row) }

// ScanAudit reads id, actor, action, target_type, target_id, account_id, request_id,
// at, details.
func ScanAudit(row Scanner) (*skygate.AuditEvent, error) { return scanAudit(row) }

// Outcome says what an operation's failures mean to the caller: the public message of
// a unique violation (Conflict) and of a missing row or broken reference (NotFound).
// An empty message leaves that failure internal.
type Outcome struct {
	Op       string
	Conflict string
	NotFound string
}

// NotFound is the CodeNotFound error of an update or delete that matched no row.
func NotFound(message string) error { return notFound(message) }

// Interpret turns a driver error of engine into a domain error, classify telling which
// constraint it violated; an error that already carries a domain error (from
// Transition, apply, or the store's own rules) is returned as it is, wrapped or not.
// sql.ErrNoRows is CodeNotFound, a unique violation CodeConflict and a foreign key
// violation CodeNotFound, each only where o gives it a message; text the engine cannot
// store (a NUL byte in PostgreSQL) is CodeNotFound where o has that message, since no
// row can hold it, else CodeBadRequest; anything else stays internal, wrapped with the
// operation.
func Interpret(engine string, classify func(error) Violation, o Outcome, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := errors.AsType[*skygate.Error](err); ok {
		// Already a domain error (a NotFound of no affected row, a refusal of the
		// transaction's own logic): it says more than the driver's error would.
		return err
	}
	if errors.Is(err, sql.ErrNoRows) && o.NotFound != "" {
		return &skygate.Error{Code: skygate.CodeNotFound, Message: o.NotFound}
	}
	if sqlState(err) == stateUnstorableText {
		if o.NotFound != "" {
			return &skygate.Error{Code: skygate.CodeNotFound, Message: o.NotFound, Err: err}
		}
		return &skygate.Error{Code: skygate.CodeBadRequest, Message: "the request holds text that cannot be stored, such as a NUL byte", Err: err}
	}
	switch classify(err) {
	case UniqueViolation:
		if o.Conflict != "" {
			return &skygate.Error{Code: skygate.CodeConflict, Message: o.Conflict, Err: err}
		}
	case ForeignKeyViolation:
		if o.NotFound != "" {
			return &skygate.Error{Code: skygate.CodeNotFound, Message: o.NotFound, Err: err}
		}
	}
	return fmt.Errorf("%s: %s: %w", engine, o.Op, err)
}

// NormaliseBooking brings b's times to the stored precision and its lists to non-nil,
// so that what the caller holds equals what a later read returns.
func NormaliseBooking(b *skygate.Booking) { normaliseBooking(b) }

// PassengersCol scans a bookings.passengers column into *p.
func PassengersCol(p *[]skygate.Passenger) sql.Scanner { return passengersCol{p} }

// ErrNoSealer is the error of a store opened without a sealer.
var ErrNoSealer = errNoSealer

// ScanWebhook reads id, account_id, url, active, secret, previous_secret,
// previous_valid_until, failing_since, created_at, updated_at.
func ScanWebhook(row Scanner) (*skygate.WebhookSubscription, error) { return scanWebhook(row) }

// ScanDelivery reads id, subscription_id, account_id, event_id, event_type, status,
// attempts, next_attempt_at, leased_until, last_status_code, last_error, created_at,
// updated_at of a webhook delivery, then extra destinations of the same row. The
// lease is internal to the store and returned apart.
func ScanDelivery(row Scanner, extra ...any) (d *skygate.WebhookDelivery, leasedUntil *time.Time, err error) {
	var r deliveryRow
	if err := row.Scan(append(r.dest(), extra...)...); err != nil {
		return nil, nil, err
	}
	return r.delivery(), r.leasedUntil, nil
}

// ScanAttempt reads delivery_id, attempt, at, status_code, latency_ms, error.
func ScanAttempt(row Scanner) (*skygate.WebhookAttempt, error) { return scanAttempt(row) }

// ScanESIMPackage reads id, account_id, seq, name, countries, data_mb, validity_days,
// price_amount, price_currency, top_up, active, created_at, updated_at.
func ScanESIMPackage(row Scanner) (*skygate.ESIMPackage, error) { return scanESIMPackage(row) }

// ScanESIM reads iccid, account_id, order_id, package_id, status, total_mb, used_mb,
// validity_days, notified_thresholds, installed_at, activated_at, expires_at,
// created_at, updated_at of the eSIM, then smdp_address, matching_id_enc of its pool
// profile.
func ScanESIM(row Scanner) (*skygate.ESIM, error) { return scanESIM(row) }

// NormaliseESIM brings e's times to the stored precision and its list to non-nil.
func NormaliseESIM(e *skygate.ESIM) { normaliseESIM(e) }

// ScanESIMOrder reads id, account_id, client_id, package_id, quantity,
// partner_reference, status, unit_amount, total_amount, currency, created_at.
func ScanESIMOrder(row Scanner) (*skygate.ESIMOrder, error) { return scanESIMOrder(row) }

// ScanTopUp reads id, account_id, client_id, iccid, package_id, data_mb, validity_days,
// price_amount, price_currency, created_at.
func ScanTopUp(row Scanner) (*skygate.TopUp, error) { return scanTopUp(row) }

// ScanLedger reads id, account_id, kind, amount, currency, balance_after, reference,
// description, created_at.
func ScanLedger(row Scanner) (*skygate.LedgerEntry, error) { return scanLedger(row) }
