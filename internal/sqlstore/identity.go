package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/skygate/skygate"
)

// The flows of accounts, applications, login codes, signing keys and audit records.

// Public messages of missing rows; a row of another account is missing too.
const (
	AccountNotFound     = "account not found"
	ApplicationNotFound = "application not found"
	// LoginCodeNotFound is the one message of an unknown, used or expired code.
	LoginCodeNotFound = "the login code is unknown, used or expired"
)

// CreateAccount is skygate.AccountStore's CreateAccount with insert, which takes id,
// name, status, created_at, updated_at. It normalises a's times to the stored
// precision.
func CreateAccount(ctx context.Context, db *DB, insert string, a *skygate.Account, audit *skygate.AuditEvent) error {
	if err := Audited("create account", audit); err != nil {
		return err
	}
	a.CreatedAt, a.UpdatedAt = UTC(a.CreatedAt), UTC(a.UpdatedAt)
	o := Outcome{Op: "create account", Conflict: fmt.Sprintf("an account named %q already exists", a.Name)}
	return Exec(ctx, db, o, audit, insert, a.ID, a.Name, string(a.Status), db.Time(a.CreatedAt), db.Time(a.UpdatedAt))
}

// createApplicationOutcome is what the failures of inserting app mean.
func createApplicationOutcome(app *skygate.Application) Outcome {
	return Outcome{
		Op:       "create application",
		Conflict: fmt.Sprintf("an application with client_id %q already exists", app.ClientID),
		NotFound: AccountNotFound,
	}
}

// CreateApplication is skygate.ApplicationStore's CreateApplication with insert, which
// takes the columns ScanApplication reads. It normalises app's times to the stored
// precision and a nil AllowedScopes to an empty list.
func CreateApplication(ctx context.Context, db *DB, insert string, app *skygate.Application, audit *skygate.AuditEvent) error {
	if err := Audited("create application", audit); err != nil {
		return err
	}
	args, err := applicationArgs(db, app)
	if err != nil {
		return err
	}
	return Exec(ctx, db, createApplicationOutcome(app), audit, insert, args...)
}

// CreateFirstApplication is skygate.ApplicationStore's CreateFirstApplication: inside
// one transaction, account matches the account's row (no row: the account is
// unknown), oldest reads its oldest application, and insert (as in CreateApplication)
// writes app only when there is none. Concurrent calls for one account must run one
// after the other, so that each reads what its predecessors committed: account takes
// the row's lock where the engine has concurrent writers.
func CreateFirstApplication(ctx context.Context, db *DB, account, oldest, insert string, app *skygate.Application, audit *skygate.AuditEvent) (*skygate.Application, bool, error) {
	if err := Audited("create first application", audit); err != nil {
		return nil, false, err
	}
	out, created := app, false
	err := db.InTx(ctx, func(tx *Tx) error {
		var one int
		if err := tx.QueryRowContext(ctx, account, app.AccountID).Scan(&one); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return notFound(AccountNotFound)
			}
			return err
		}
		existing, err := ScanApplication(tx.QueryRowContext(ctx, oldest, app.AccountID))
		if err == nil {
			out = existing
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		args, err := applicationArgs(db, app)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, insert, args...); err != nil {
			return err
		}
		created = true
		return db.Audit(ctx, tx, audit)
	})
	if err != nil {
		return nil, false, db.Interpret(createApplicationOutcome(app), err)
	}
	return out, created, nil
}

// applicationArgs returns the arguments of the columns ScanApplication reads for app,
// after normalising its times to the stored precision and a nil AllowedScopes or
// Audiences to an empty list.
func applicationArgs(db *DB, app *skygate.Application) ([]any, error) {
	app.CreatedAt, app.UpdatedAt = UTC(app.CreatedAt), UTC(app.UpdatedAt)
	var revokedAt *time.Time
	if !app.TokensRevokedAt.IsZero() {
		app.TokensRevokedAt = UTC(app.TokensRevokedAt)
		revokedAt = &app.TokensRevokedAt
	}
	var prevUntil *time.Time
	if !app.PreviousSecretExpiresAt.IsZero() {
		app.PreviousSecretExpiresAt = UTC(app.PreviousSecretExpiresAt)
		prevUntil = &app.PreviousSecretExpiresAt
	}
	var prevHash any // NULL without a previous secret
	if len(app.PreviousSecretHash) > 0 {
		prevHash = app.PreviousSecretHash
	}
	if app.AllowedScopes == nil {
		app.AllowedScopes = []string{}
	}
	if app.Audiences == nil {
		app.Audiences = []string{}
	}
	scopes, err := JSONText(app.AllowedScopes)
	if err != nil {
		return nil, err
	}
	audiences, err := JSONText(app.Audiences)
	if err != nil {
		return nil, err
	}
	return []any{app.ID, app.AccountID, app.Name, app.ClientID, NonNil(app.SecretHash), scopes, app.Sandbox,
		app.ClientCertSHA256, db.Time(app.CreatedAt), db.Time(app.UpdatedAt), app.TokenGeneration,
		db.NullTime(revokedAt), prevHash, db.NullTime(prevUntil), audiences}, nil
}

// ApplicationByClientID is skygate.ApplicationStore's ApplicationByClientID with
// query, which reads the columns of ScanApplication, then id, name, status,
// created_at, updated_at of the application's account.
func ApplicationByClientID(ctx context.Context, db *DB, query, clientID string) (*skygate.Application, *skygate.Account, error) {
	var (
		acc    skygate.Account
		status string
	)
	app, err := ScanApplication(db.Read.QueryRowContext(ctx, query, clientID),
		&acc.ID, &acc.Name, &status, timeCol{&acc.CreatedAt}, timeCol{&acc.UpdatedAt})
	if err != nil {
		return nil, nil, db.Interpret(Outcome{Op: "get application by client id", NotFound: ApplicationNotFound}, err)
	}
	acc.Status = skygate.AccountStatus(status)
	return app, &acc, nil
}

// UpdateApplication runs update, an UPDATE … RETURNING of one application, and the
// audit record in one transaction and returns the application as written.
func UpdateApplication(ctx context.Context, db *DB, op string, audit *skygate.AuditEvent, update string, args ...any) (*skygate.Application, error) {
	if err := Audited(op, audit); err != nil {
		return nil, err
	}
	return WriteRow(ctx, db, Outcome{Op: op, NotFound: ApplicationNotFound}, audit, ScanApp, update, args...)
}

// ScanApp is ScanApplication without extra destinations.
func ScanApp(row Scanner) (*skygate.Application, error) { return ScanApplication(row) }

// CreateLoginCode is skygate.LoginCodeStore's CreateLoginCode with insert, which takes
// the columns ScanLoginCode reads. It normalises c's times to the stored precision and
// nil Roles and Scopes to empty lists.
func CreateLoginCode(ctx context.Context, db *DB, insert string, c *skygate.LoginCode) error {
	c.CreatedAt, c.ExpiresAt = UTC(c.CreatedAt), UTC(c.ExpiresAt)
	c.UsedAt = utcPtr(c.UsedAt)
	if c.Roles == nil {
		c.Roles = []string{}
	}
	if c.Scopes == nil {
		c.Scopes = []string{}
	}
	roles, err := JSONText(c.Roles)
	if err != nil {
		return err
	}
	scopes, err := JSONText(c.Scopes)
	if err != nil {
		return err
	}
	return Exec(ctx, db, Outcome{Op: "create login code", Conflict: "the login code already exists"}, nil, insert,
		NonNil(c.Hash), c.Subject, c.Email, c.Name, roles, scopes, c.CodeChallenge, c.RedirectURI,
		db.Time(c.CreatedAt), db.Time(c.ExpiresAt), db.NullTime(c.UsedAt))
}

// CreateSigningKey is skygate.KeyStore's CreateSigningKey with insert, which takes
// the columns ScanSigningKey reads. It normalises k's times to the stored precision.
func CreateSigningKey(ctx context.Context, db *DB, insert string, k *skygate.SigningKey) error {
	k.CreatedAt, k.ActiveAt = UTC(k.CreatedAt), UTC(k.ActiveAt)
	o := Outcome{Op: "create signing key", Conflict: fmt.Sprintf("a signing key with kid %q already exists", k.ID)}
	return Exec(ctx, db, o, nil, insert,
		k.ID, NonNil(k.PrivateKeyEnc), NonNil(k.PublicKeyDER), db.Time(k.CreatedAt), db.Time(k.ActiveAt))
}

// ScanSigningKey reads kid, private_key_enc, public_key_der, created_at, active_at.
func ScanSigningKey(row Scanner) (*skygate.SigningKey, error) {
	var k skygate.SigningKey
	if err := row.Scan(&k.ID, &k.PrivateKeyEnc, &k.PublicKeyDER, timeCol{&k.CreatedAt}, timeCol{&k.ActiveAt}); err != nil {
		return nil, err
	}
	return &k, nil
}

// DeleteSigningKeys is skygate.KeyStore's DeleteSigningKeys with del, one statement
// that takes the list of kids (Strings), so that a failure deletes none of them.
func DeleteSigningKeys(ctx context.Context, db *DB, del string, kids []string) error {
	if len(kids) == 0 {
		return nil
	}
	list, err := db.Strings(kids)
	if err != nil {
		return err
	}
	return Exec(ctx, db, Outcome{Op: "delete signing keys"}, nil, del, list)
}

// AppendAudit inserts e inside tx with insert, which takes id, actor, action,
// target_type, target_id, account_id, request_id, at, details; a nil e is no record.
// It is what an engine's DB.Audit runs.
func AppendAudit(ctx context.Context, db *DB, tx *Tx, insert string, e *skygate.AuditEvent) error {
	if e == nil {
		return nil
	}
	e.At = UTC(e.At)
	details := string(e.Details)
	if details == "" {
		details = "{}"
	}
	_, err := tx.ExecContext(ctx, insert, e.ID, e.Actor, e.Action, e.TargetType,
		e.TargetID, e.AccountID, e.RequestID, db.Time(e.At), details)
	return db.Interpret(Outcome{Op: "append audit event", Conflict: "audit event exists"}, err)
}

// Audited returns an error unless audit is a record. The writes of the admin surface
// (accounts, applications, eSIM packages, pool and credits, an employee's booking
// transition) refuse to run without one, so that none can be made unaudited; the
// error is a programming error, not the client's.
func Audited(op string, audit *skygate.AuditEvent) error {
	if audit == nil {
		return fmt.Errorf("sqlstore: %s: the write needs an audit record", op)
	}
	return nil
}

// SetAccountStatus runs update (status, updated_at, account id) with audit's record.
func SetAccountStatus(ctx context.Context, db *DB, update, accountID string, st skygate.AccountStatus, now time.Time, audit *skygate.AuditEvent) (*skygate.Account, error) {
	if err := Audited("set account status", audit); err != nil {
		return nil, err
	}
	return WriteRow(ctx, db, Outcome{Op: "set account status", NotFound: AccountNotFound}, audit, ScanAccount, update, string(st), db.Time(now), accountID)
}

// DeleteApplication runs del (account id, application id) with audit's record.
func DeleteApplication(ctx context.Context, db *DB, del, accountID, applicationID string, audit *skygate.AuditEvent) error {
	if err := Audited("delete application", audit); err != nil {
		return err
	}
	return Delete(ctx, db, Outcome{Op: "delete application", NotFound: ApplicationNotFound}, audit, del, accountID, applicationID)
}

// PreviousSecretUntil is the previous secret's expiry that SetApplicationSecret
// stores: until in the stored form when it is after now, else nil (no previous
// secret).
func PreviousSecretUntil(until, now time.Time) *time.Time {
	if !until.After(now) {
		return nil
	}
	t := UTC(until)
	return &t
}
