package sqlstore

import (
	"database/sql"
	"errors"
	"math"
	"time"

	"github.com/skygate/skygate"
)

// The scanners behind the exported ones of shared.go, and the helpers of Interpret.

// scanAccount reads id, name, status, created_at, updated_at.
func scanAccount(row scanner) (*skygate.Account, error) {
	var a skygate.Account
	var status string
	if err := row.Scan(&a.ID, &a.Name, &status, timeCol{&a.CreatedAt}, timeCol{&a.UpdatedAt}); err != nil {
		return nil, err
	}
	a.Status = skygate.AccountStatus(status)
	return &a, nil
}

// scanApplication reads the columns ScanApplication names, then extra destinations
// of the same row.
func scanApplication(row scanner, extra ...any) (*skygate.Application, error) {
	var (
		app       skygate.Application
		revokedAt *time.Time
	)
	dest := append([]any{
		&app.ID, &app.AccountID, &app.Name, &app.ClientID, &app.SecretHash,
		jsonCol{&app.AllowedScopes}, &app.Sandbox, &app.ClientCertSHA256,
		timeCol{&app.CreatedAt}, timeCol{&app.UpdatedAt}, &app.TokenGeneration, nullTimeCol{&revokedAt},
	}, extra...)
	if err := row.Scan(dest...); err != nil {
		return nil, err
	}
	if revokedAt != nil {
		app.TokensRevokedAt = *revokedAt
	}
	return &app, nil
}

// scanLoginCode reads the columns ScanLoginCode names.
func scanLoginCode(row scanner) (*skygate.LoginCode, error) {
	var c skygate.LoginCode
	if err := row.Scan(&c.Hash, &c.Subject, &c.Email, &c.Name, jsonCol{&c.Roles}, jsonCol{&c.Scopes},
		&c.CodeChallenge, &c.RedirectURI, timeCol{&c.CreatedAt}, timeCol{&c.ExpiresAt},
		nullTimeCol{&c.UsedAt}); err != nil {
		return nil, err
	}
	return &c, nil
}

func scanAudit(row scanner) (*skygate.AuditEvent, error) {
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

// ScanIdempotency reads account_id, operation, idem_key, fingerprint, status_code,
// resource_id, body, created_at, expires_at, sealed, opening a sealed fingerprint and
// body with sealer.
func ScanIdempotency(sealer skygate.Sealer, row Scanner) (*skygate.IdempotencyRecord, error) {
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
		if err := OpenIdempotency(sealer, &r); err != nil {
			return nil, err
		}
	}
	return &r, nil
}

// scanWebhook reads the columns ScanWebhook names.
func scanWebhook(row scanner) (*skygate.WebhookSubscription, error) {
	var w skygate.WebhookSubscription
	err := row.Scan(&w.ID, &w.AccountID, &w.URL, &w.Active, &w.Secret, &w.PreviousSecret,
		nullTimeCol{&w.PreviousValidUntil}, nullTimeCol{&w.FailingSince},
		timeCol{&w.CreatedAt}, timeCol{&w.UpdatedAt})
	if err != nil {
		return nil, err
	}
	if len(w.PreviousSecret) == 0 {
		w.PreviousSecret = nil
	}
	return &w, nil
}

// deliveryRow is one scanned row of the columns ScanDelivery names; leasedUntil is
// internal.
type deliveryRow struct {
	d           skygate.WebhookDelivery
	leasedUntil *time.Time
}

// dest returns the scan destinations of the columns ScanDelivery names.
func (r *deliveryRow) dest() []any {
	return []any{&r.d.ID, &r.d.SubscriptionID, &r.d.AccountID, &r.d.EventID, &r.d.EventType,
		(*string)(&r.d.Status), &r.d.AttemptCount, nullTimeCol{&r.d.NextAttemptAt}, nullTimeCol{&r.leasedUntil},
		&r.d.LastStatusCode, &r.d.LastError, timeCol{&r.d.CreatedAt}, timeCol{&r.d.UpdatedAt}}
}

// delivery finishes the scanned delivery: the message id is the event id.
func (r *deliveryRow) delivery() *skygate.WebhookDelivery {
	r.d.MessageID = r.d.EventID
	return &r.d
}

// scanAttempt reads the columns ScanAttempt names.
func scanAttempt(row scanner) (*skygate.WebhookAttempt, error) {
	var a skygate.WebhookAttempt
	err := row.Scan(&a.DeliveryID, &a.Attempt, timeCol{&a.At}, &a.StatusCode, &a.LatencyMS, &a.Error)
	if err != nil {
		return nil, err
	}
	return &a, nil
}

// scanESIMPackage reads the columns ScanESIMPackage names.
func scanESIMPackage(row scanner) (*skygate.ESIMPackage, error) {
	var (
		p    skygate.ESIMPackage
		seq  int64
		data sql.NullInt64
	)
	err := row.Scan(&p.ID, &p.AccountID, &seq, jsonCol{&p.Name}, jsonCol{&p.Countries}, &data, &p.ValidityDays,
		&p.Price.Amount, &p.Price.Currency, &p.TopUp, &p.Active, timeCol{&p.CreatedAt}, timeCol{&p.UpdatedAt})
	if err != nil {
		return nil, err
	}
	p.DataMB = nullInt(data)
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

// scanESIM reads the columns ScanESIM names.
func scanESIM(row scanner) (*skygate.ESIM, error) {
	var (
		e      skygate.ESIM
		status string
		total  sql.NullInt64
		used   int
	)
	err := row.Scan(&e.ICCID, &e.AccountID, &e.OrderID, &e.PackageID, &status, &total, &used,
		&e.ValidityDays, jsonCol{&e.NotifiedThresholds}, nullTimeCol{&e.InstalledAt},
		nullTimeCol{&e.ActivatedAt}, nullTimeCol{&e.ExpiresAt}, timeCol{&e.CreatedAt}, timeCol{&e.UpdatedAt},
		&e.SMDPAddress, &e.MatchingIDSealed)
	if err != nil {
		return nil, err
	}
	e.Status = skygate.ESIMStatus(status)
	e.Usage = skygate.NewESIMUsage(nullInt(total), used)
	if e.NotifiedThresholds == nil {
		e.NotifiedThresholds = []int{}
	}
	return &e, nil
}

// normaliseESIM brings e's times to the stored precision and its list to non-nil.
func normaliseESIM(e *skygate.ESIM) {
	e.CreatedAt, e.UpdatedAt = utc(e.CreatedAt), utc(e.UpdatedAt)
	for _, t := range []**time.Time{&e.InstalledAt, &e.ActivatedAt, &e.ExpiresAt} {
		if *t != nil {
			v := utc(**t)
			*t = &v
		}
	}
	if e.NotifiedThresholds == nil {
		e.NotifiedThresholds = []int{}
	}
}

// scanESIMOrder reads the columns ScanESIMOrder names.
func scanESIMOrder(row scanner) (*skygate.ESIMOrder, error) {
	var (
		o      skygate.ESIMOrder
		status string
	)
	err := row.Scan(&o.ID, &o.AccountID, &o.ClientID, &o.PackageID, &o.Quantity, &o.PartnerReference, &status,
		&o.UnitPrice.Amount, &o.Total.Amount, &o.Total.Currency, timeCol{&o.CreatedAt})
	if err != nil {
		return nil, err
	}
	o.Status = skygate.ESIMOrderStatus(status)
	o.UnitPrice.Currency = o.Total.Currency
	o.ESIMs = []*skygate.ESIM{}
	return &o, nil
}

// scanTopUp reads the columns ScanTopUp names.
func scanTopUp(row scanner) (*skygate.TopUp, error) {
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

// scanLedger reads the columns ScanLedger names.
func scanLedger(row scanner) (*skygate.LedgerEntry, error) {
	var (
		e    skygate.LedgerEntry
		kind string
	)
	err := row.Scan(&e.ID, &e.AccountID, &kind, &e.Amount.Amount, &e.Amount.Currency, &e.BalanceAfter,
		&e.Reference, &e.Description, timeCol{&e.CreatedAt})
	if err != nil {
		return nil, err
	}
	e.Kind = skygate.LedgerKind(kind)
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

// pageArgs returns LIMIT and OFFSET values for p. A Limit of zero or less means no
// limit, and a negative Offset is zero.
func pageArgs(p skygate.Page) (limit, offset int64) {
	limit, offset = int64(p.Limit), int64(p.Offset)
	if limit <= 0 {
		limit = math.MaxInt64
	}
	if offset < 0 {
		offset = 0
	}
	return limit, offset
}

// utc is the form in which every time is stored and returned.
func utc(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

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
