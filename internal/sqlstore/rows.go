package sqlstore

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/skygate/skygate"
)

// The scanners of rows into domain types, and the helpers of Interpret.

// ScanAccount reads id, name, status, created_at, updated_at.
func ScanAccount(row Scanner) (*skygate.Account, error) {
	var a skygate.Account
	var status string
	if err := row.Scan(&a.ID, &a.Name, &status, timeCol{&a.CreatedAt}, timeCol{&a.UpdatedAt}); err != nil {
		return nil, err
	}
	a.Status = skygate.AccountStatus(status)
	return &a, nil
}

// ScanApplication reads id, account_id, name, client_id, secret_hash, allowed_scopes,
// sandbox, client_cert_sha256, created_at, updated_at, token_generation,
// tokens_revoked_at, previous_secret_hash, previous_secret_expires_at, audiences, then
// extra destinations of the same row.
func ScanApplication(row Scanner, extra ...any) (*skygate.Application, error) {
	var (
		app                  skygate.Application
		revokedAt, prevUntil *time.Time
	)
	dest := append([]any{
		&app.ID, &app.AccountID, &app.Name, &app.ClientID, &app.SecretHash,
		jsonCol{&app.AllowedScopes}, &app.Sandbox, &app.ClientCertSHA256,
		timeCol{&app.CreatedAt}, timeCol{&app.UpdatedAt}, &app.TokenGeneration, nullTimeCol{&revokedAt},
		&app.PreviousSecretHash, nullTimeCol{&prevUntil},
		jsonCol{&app.Audiences},
	}, extra...)
	if err := row.Scan(dest...); err != nil {
		return nil, err
	}
	if revokedAt != nil {
		app.TokensRevokedAt = *revokedAt
	}
	if prevUntil != nil {
		app.PreviousSecretExpiresAt = *prevUntil
	}
	if len(app.PreviousSecretHash) == 0 {
		app.PreviousSecretHash = nil
	}
	return &app, nil
}

// ScanLoginCode reads code_hash, subject, email, name, roles, scopes, code_challenge,
// redirect_uri, created_at, expires_at, used_at.
func ScanLoginCode(row Scanner) (*skygate.LoginCode, error) {
	var c skygate.LoginCode
	if err := row.Scan(&c.Hash, &c.Subject, &c.Email, &c.Name, jsonCol{&c.Roles}, jsonCol{&c.Scopes},
		&c.CodeChallenge, &c.RedirectURI, timeCol{&c.CreatedAt}, timeCol{&c.ExpiresAt},
		nullTimeCol{&c.UsedAt}); err != nil {
		return nil, err
	}
	return &c, nil
}

// ScanAudit reads id, actor, action, target_type, target_id, account_id, request_id,
// at, details.
func ScanAudit(row Scanner) (*skygate.AuditEvent, error) {
	var e skygate.AuditEvent
	var details string
	if err := row.Scan(&e.ID, &e.Actor, &e.Action, &e.TargetType, &e.TargetID, &e.AccountID,
		&e.RequestID, timeCol{&e.At}, &details); err != nil {
		return nil, err
	}
	e.Details = []byte(details)
	return &e, nil
}

// ScanBooking reads id, account_id, client_id, status, fast_track_id, service_date,
// flight, passengers, partner_reference, confirm_before, status_history, pass_code,
// pass_payload, pass_valid_from, pass_valid_until, created_at, updated_at,
// passenger_data, personal_data_removed_at, livemode, commerce, opening the sealed
// passengers with sealer.
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
		timeCol{&b.CreatedAt}, timeCol{&b.UpdatedAt}, &passengerData, nullTimeCol{&b.PersonalDataRemovedAt},
		&b.Livemode, commerceCol{&b})
	if err != nil {
		return nil, err
	}
	if passengerData != nil {
		if err := openPassengers(sealer, &b, passengerData); err != nil {
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

// NormaliseBooking brings b's times to the stored precision and its lists to non-nil,
// so that what the caller holds equals what a later read returns.
func NormaliseBooking(b *skygate.Booking) {
	b.CreatedAt, b.UpdatedAt = UTC(b.CreatedAt), UTC(b.UpdatedAt)
	b.ConfirmBefore, b.PersonalDataRemovedAt = utcPtr(b.ConfirmBefore), utcPtr(b.PersonalDataRemovedAt)
	if b.Passengers == nil {
		b.Passengers = []skygate.Passenger{}
	}
	if b.StatusHistory == nil {
		b.StatusHistory = []skygate.StatusChange{}
	}
	for i := range b.StatusHistory {
		b.StatusHistory[i].At = UTC(b.StatusHistory[i].At)
	}
	if b.Pass != nil {
		b.Pass.ValidFrom, b.Pass.ValidUntil = UTC(b.Pass.ValidFrom), UTC(b.Pass.ValidUntil)
	}
	for i := range b.CancellationPolicy {
		b.CancellationPolicy[i].Until = UTC(b.CancellationPolicy[i].Until)
	}
	if b.Slot != nil {
		b.Slot.Start = UTC(b.Slot.Start)
	}
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

// scanIdempotency reads account_id, operation, idem_key, fingerprint, status_code,
// resource_id, body, created_at, expires_at, sealed, opening a sealed fingerprint and
// body with sealer.
func scanIdempotency(sealer skygate.Sealer, row Scanner) (*skygate.IdempotencyRecord, error) {
	var (
		r      skygate.IdempotencyRecord
		sealed bool
	)
	err := row.Scan(&r.AccountID, &r.Operation, &r.Key, &r.Fingerprint, &r.StatusCode, &r.ResourceID,
		&r.Body, timeCol{&r.CreatedAt}, timeCol{&r.ExpiresAt}, &sealed)
	if err != nil {
		return nil, err
	}
	if sealed {
		if err := openIdempotency(sealer, &r); err != nil {
			return nil, err
		}
	}
	return &r, nil
}

// ScanWebhook reads id, account_id, url, active, secret, previous_secret,
// previous_valid_until, failing_since, created_at, updated_at, event_types (a JSON
// array), disabled_at, disabled_reason.
func ScanWebhook(row Scanner) (*skygate.WebhookSubscription, error) {
	var w skygate.WebhookSubscription
	dest, finish := webhookDest(&w)
	if err := row.Scan(dest...); err != nil {
		return nil, err
	}
	finish()
	return &w, nil
}

// webhookDest returns the destinations of ScanWebhook's columns in w, and the
// function that completes w after the scan.
func webhookDest(w *skygate.WebhookSubscription) (dest []any, finish func()) {
	var reason sql.NullString
	dest = []any{&w.ID, &w.AccountID, &w.URL, &w.Active, &w.Secret, &w.PreviousSecret,
		nullTimeCol{&w.PreviousValidUntil}, nullTimeCol{&w.FailingSince},
		timeCol{&w.CreatedAt}, timeCol{&w.UpdatedAt},
		jsonCol{&w.EventTypes}, nullTimeCol{&w.DisabledAt}, &reason}
	return dest, func() {
		if len(w.PreviousSecret) == 0 {
			w.PreviousSecret = nil
		}
		if w.EventTypes == nil {
			w.EventTypes = []string{}
		}
		if reason.Valid {
			w.DisabledReason = &reason.String
		}
	}
}

// ScanDelivery reads id, subscription_id, account_id, event_id, event_type, status,
// attempts, next_attempt_at, leased_until, last_status_code, last_error, created_at,
// updated_at of a webhook delivery, then extra destinations of the same row. The
// lease is internal to the store and returned apart.
func ScanDelivery(row Scanner, extra ...any) (*skygate.WebhookDelivery, *time.Time, error) {
	var (
		d           skygate.WebhookDelivery
		leasedUntil *time.Time
	)
	err := row.Scan(append([]any{&d.ID, &d.SubscriptionID, &d.AccountID, &d.EventID, &d.EventType,
		(*string)(&d.Status), &d.AttemptCount, nullTimeCol{&d.NextAttemptAt}, nullTimeCol{&leasedUntil},
		&d.LastStatusCode, &d.LastError, timeCol{&d.CreatedAt}, timeCol{&d.UpdatedAt}}, extra...)...)
	if err != nil {
		return nil, nil, err
	}
	d.MessageID = d.EventID // the message id is the event id
	return &d, leasedUntil, nil
}

// ScanEvent reads the event's position in the feed (NULL: none yet), id, account_id,
// type, data, created_at, api_version, livemode, ordering_key.
func ScanEvent(row Scanner) (*skygate.Event, error) {
	var (
		e    skygate.Event
		pos  sql.NullInt64
		data []byte
	)
	if err := row.Scan(&pos, &e.ID, &e.AccountID, &e.Type, &data, timeCol{&e.CreatedAt},
		&e.APIVersion, &e.Livemode, &e.OrderingKey); err != nil {
		return nil, err
	}
	e.Seq, e.Data = pos.Int64, data
	return &e, nil
}

// scanAttempt reads delivery_id, attempt, at, status_code, latency_ms, error.
func scanAttempt(row Scanner) (*skygate.WebhookAttempt, error) {
	var a skygate.WebhookAttempt
	err := row.Scan(&a.DeliveryID, &a.Attempt, timeCol{&a.At}, &a.StatusCode, &a.LatencyMS, &a.Error)
	if err != nil {
		return nil, err
	}
	return &a, nil
}

// ScanESIMPackage reads id, account_id, seq, name, countries, data_mb, validity_days,
// price_amount, price_currency, top_up, active, created_at, updated_at, apn (JSON or
// NULL), refund_window_days.
func ScanESIMPackage(row Scanner) (*skygate.ESIMPackage, error) {
	var (
		p      skygate.ESIMPackage
		seq    int64
		data   sql.NullInt64
		apn    sql.NullString
		window int
	)
	err := row.Scan(&p.ID, &p.AccountID, &seq, jsonCol{&p.Name}, jsonCol{&p.Countries}, &data, &p.ValidityDays,
		&p.Price.Amount, &p.Price.Currency, &p.TopUp, &p.Active, timeCol{&p.CreatedAt}, timeCol{&p.UpdatedAt},
		&apn, &window)
	if err != nil {
		return nil, err
	}
	if apn.Valid {
		p.APN = new(skygate.APN)
		if err := json.Unmarshal([]byte(apn.String), p.APN); err != nil {
			return nil, fmt.Errorf("sqlstore: the APN of package %s: %w", p.ID, err)
		}
	}
	p.DataMB, p.RefundWindowDays = nullInt(data), &window
	if p.Countries == nil {
		p.Countries = []string{}
	}
	return &p, nil
}

// nullInt returns the value of a nullable integer column, nil for NULL.
func nullInt(v sql.NullInt64) *int {
	if !v.Valid {
		return nil
	}
	n := int(v.Int64)
	return &n
}

// ScanESIM reads iccid, account_id, order_id, package_id, status, total_mb, used_mb,
// validity_days, notified_thresholds, installed_at, activated_at, expires_at,
// created_at, updated_at of the eSIM, then smdp_address, matching_id_enc of its pool
// profile, then the eSIM's livemode, profile_state, canceled_at, expiry_warned and
// refund_until.
func ScanESIM(row Scanner) (*skygate.ESIM, error) {
	var (
		e       skygate.ESIM
		status  string
		profile string
		total   sql.NullInt64
		used    int
	)
	err := row.Scan(&e.ICCID, &e.AccountID, &e.OrderID, &e.PackageID, &status, &total, &used,
		&e.ValidityDays, jsonCol{&e.NotifiedThresholds}, nullTimeCol{&e.InstalledAt},
		nullTimeCol{&e.ActivatedAt}, nullTimeCol{&e.ExpiresAt}, timeCol{&e.CreatedAt}, timeCol{&e.UpdatedAt},
		&e.SMDPAddress, &e.MatchingIDSealed, &e.Livemode, &profile, nullTimeCol{&e.CanceledAt}, &e.ExpiryWarned,
		nullTimeCol{&e.RefundUntil})
	if err != nil {
		return nil, err
	}
	e.Status, e.ProfileState = skygate.ESIMStatus(status), skygate.ProfileState(profile)
	e.Usage = skygate.NewESIMUsage(nullInt(total), used)
	if e.NotifiedThresholds == nil {
		e.NotifiedThresholds = []int{}
	}
	return &e, nil
}

// normaliseESIM brings e's times to the stored precision and its list to non-nil.
func normaliseESIM(e *skygate.ESIM) {
	e.CreatedAt, e.UpdatedAt = UTC(e.CreatedAt), UTC(e.UpdatedAt)
	e.InstalledAt, e.ActivatedAt, e.ExpiresAt = utcPtr(e.InstalledAt), utcPtr(e.ActivatedAt), utcPtr(e.ExpiresAt)
	e.CanceledAt, e.RefundUntil = utcPtr(e.CanceledAt), utcPtr(e.RefundUntil)
	if e.NotifiedThresholds == nil {
		e.NotifiedThresholds = []int{}
	}
}

// ScanESIMOrder reads id, account_id, client_id, package_id, quantity,
// partner_reference, status, unit_amount, total_amount, currency, created_at, livemode.
func ScanESIMOrder(row Scanner) (*skygate.ESIMOrder, error) {
	var (
		o      skygate.ESIMOrder
		status string
	)
	err := row.Scan(&o.ID, &o.AccountID, &o.ClientID, &o.PackageID, &o.Quantity, &o.PartnerReference, &status,
		&o.UnitPrice.Amount, &o.Total.Amount, &o.Total.Currency, timeCol{&o.CreatedAt}, &o.Livemode)
	if err != nil {
		return nil, err
	}
	o.Status = skygate.ESIMOrderStatus(status)
	o.UnitPrice.Currency = o.Total.Currency
	o.ESIMs = []*skygate.ESIM{}
	return &o, nil
}

// scanTopUp reads id, account_id, client_id, iccid, package_id, data_mb, validity_days,
// price_amount, price_currency, created_at.
func scanTopUp(row Scanner) (*skygate.TopUp, error) {
	var (
		t    skygate.TopUp
		data sql.NullInt64
	)
	err := row.Scan(&t.ID, &t.AccountID, &t.ClientID, &t.ICCID, &t.PackageID, &data, &t.ValidityDays,
		&t.Price.Amount, &t.Price.Currency, timeCol{&t.CreatedAt})
	if err != nil {
		return nil, err
	}
	t.DataMB = nullInt(data)
	return &t, nil
}

// ScanLedger reads id, account_id, kind, amount, currency, balance_after, reference,
// description, created_at, booking_id, iccid.
func ScanLedger(row Scanner) (*skygate.LedgerEntry, error) {
	var (
		e       skygate.LedgerEntry
		kind    string
		booking sql.NullString
		iccid   sql.NullString
	)
	err := row.Scan(&e.ID, &e.AccountID, &kind, &e.Amount.Amount, &e.Amount.Currency, &e.BalanceAfter,
		&e.Reference, &e.Description, timeCol{&e.CreatedAt}, &booking, &iccid)
	if err != nil {
		return nil, err
	}
	e.Kind = skygate.LedgerKind(kind)
	if booking.Valid {
		e.BookingID = &booking.String
	}
	if iccid.Valid {
		e.ICCID = &iccid.String
	}
	return &e, nil
}

// stateUnstorableText is SQLSTATE 22021, character_not_in_repertoire: PostgreSQL's
// answer to a text parameter with a NUL byte, which any request can carry (a path id,
// a query filter). SQLite stores such text and finds nothing.
const stateUnstorableText = "22021"

// sqlState returns the SQLSTATE of a driver error that reports one (pgx's PgError
// does, through SQLState), or "".
func sqlState(err error) string {
	var e interface{ SQLState() string }
	if errors.As(err, &e) {
		return e.SQLState()
	}
	return ""
}

// notFound is the CodeNotFound error of an update or delete that matched no row.
func notFound(message string) error {
	return &skygate.Error{Code: skygate.CodeNotFound, Message: message}
}

// PageArgs returns the LIMIT and OFFSET of p: a Limit of zero or less is no limit, a
// negative Offset is zero.
func PageArgs(p skygate.Page) (limit, offset int64) {
	limit, offset = int64(p.Limit), int64(p.Offset)
	if limit <= 0 {
		limit = math.MaxInt64
	}
	if offset < 0 {
		offset = 0
	}
	return limit, offset
}

// UTC is the form in which every time is stored and returned: UTC, truncated to the
// microsecond.
func UTC(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// utcPtr returns a new *t in the stored form, nil for nil.
func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := UTC(*t)
	return &u
}

// Violation is what a driver error means to the store. Engines classify by the
// driver's error codes, never by the error text.
type Violation int

const (
	// NoViolation is any error that is not a constraint violation.
	NoViolation Violation = iota
	// UniqueViolation is a duplicate primary key or unique column.
	UniqueViolation
	// ForeignKeyViolation is a reference to a row that does not exist.
	ForeignKeyViolation
)
