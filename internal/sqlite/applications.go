package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

// applicationNotFound is the public message of a missing application, including one
// that belongs to another account.
const applicationNotFound = "application not found"

// Every statement but selectApplicationByClientID and selectApplicationAdmin names
// the account, so that an id of another account's application matches nothing.
const (
	insertApplication = `INSERT INTO applications (id, account_id, name, client_id, secret_hash,
		allowed_scopes, sandbox, client_cert_sha256, created_at, updated_at, token_generation,
		tokens_revoked_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	selectApplication = `SELECT id, account_id, name, client_id, secret_hash, allowed_scopes,
		sandbox, client_cert_sha256, created_at, updated_at, token_generation, tokens_revoked_at
		FROM applications WHERE account_id = ? AND id = ?`
	selectApplicationAdmin = `SELECT id, account_id, name, client_id, secret_hash, allowed_scopes,
		sandbox, client_cert_sha256, created_at, updated_at, token_generation, tokens_revoked_at
		FROM applications WHERE id = ?`
	selectApplicationByClientID = `SELECT
		app.id, app.account_id, app.name, app.client_id, app.secret_hash, app.allowed_scopes,
		app.sandbox, app.client_cert_sha256, app.created_at, app.updated_at, app.token_generation,
		app.tokens_revoked_at,
		acc.id, acc.name, acc.status, acc.created_at, acc.updated_at
		FROM applications app JOIN accounts acc ON acc.id = app.account_id
		WHERE app.client_id = ?`
	listApplications = `SELECT id, account_id, name, client_id, secret_hash, allowed_scopes,
		sandbox, client_cert_sha256, created_at, updated_at, token_generation, tokens_revoked_at
		FROM applications WHERE account_id = ?
		ORDER BY created_at, id LIMIT ? OFFSET ?`
	countApplications = `SELECT count(*) FROM applications WHERE account_id = ?`
	deleteApplication = `DELETE FROM applications WHERE account_id = ? AND id = ?`
	// selectAccountExists matches no row for an unknown account.
	selectAccountExists     = `SELECT 1 FROM accounts WHERE id = ?`
	selectOldestApplication = `SELECT id, account_id, name, client_id, secret_hash, allowed_scopes,
		sandbox, client_cert_sha256, created_at, updated_at, token_generation, tokens_revoked_at
		FROM applications WHERE account_id = ? ORDER BY created_at, id LIMIT 1`
	updateApplicationSecret = `UPDATE applications SET secret_hash = ?, updated_at = ?
		WHERE account_id = ? AND id = ?
		RETURNING id, account_id, name, client_id, secret_hash, allowed_scopes, sandbox,
			client_cert_sha256, created_at, updated_at, token_generation, tokens_revoked_at`
	updateApplicationCertificate = `UPDATE applications SET client_cert_sha256 = ?, updated_at = ?
		WHERE account_id = ? AND id = ?
		RETURNING id, account_id, name, client_id, secret_hash, allowed_scopes, sandbox,
			client_cert_sha256, created_at, updated_at, token_generation, tokens_revoked_at`
	// revokeApplicationTokens adds one to the generation in the statement that sets the
	// secret, so no concurrent revocation is lost; the time is passed twice.
	revokeApplicationTokens = `UPDATE applications SET secret_hash = ?,
		token_generation = token_generation + 1, tokens_revoked_at = ?, updated_at = ?
		WHERE account_id = ? AND id = ?
		RETURNING id, account_id, name, client_id, secret_hash, allowed_scopes, sandbox,
			client_cert_sha256, created_at, updated_at, token_generation, tokens_revoked_at`
)

// scanApp is sqlstore.ScanApplication without extra destinations.
func scanApp(row sqlstore.Scanner) (*skygate.Application, error) {
	return sqlstore.ScanApplication(row)
}

// createApplicationOutcome is what the failures of inserting app mean.
func createApplicationOutcome(app *skygate.Application) sqlstore.Outcome {
	return sqlstore.Outcome{
		Op:       "create application",
		Conflict: fmt.Sprintf("an application with client_id %q already exists", app.ClientID),
		NotFound: accountNotFound,
	}
}

// CreateApplication implements skygate.ApplicationStore. It normalises app's times to
// the stored precision and a nil AllowedScopes to an empty list.
func (s *Store) CreateApplication(ctx context.Context, app *skygate.Application, audit *skygate.AuditEvent) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := insertApp(ctx, tx, app); err != nil {
			return err
		}
		return appendAudit(ctx, tx, audit)
	})
	return interpret(createApplicationOutcome(app), err)
}

// CreateFirstApplication implements skygate.ApplicationStore. The single writer runs
// concurrent calls one after the other, so that each reads the applications its
// predecessors committed.
func (s *Store) CreateFirstApplication(ctx context.Context, app *skygate.Application, audit *skygate.AuditEvent) (*skygate.Application, bool, error) {
	out, created := app, false
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var one int
		if err := tx.QueryRowContext(ctx, selectAccountExists, app.AccountID).Scan(&one); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return sqlstore.NotFound(accountNotFound)
			}
			return err
		}
		existing, err := sqlstore.ScanApplication(tx.QueryRowContext(ctx, selectOldestApplication, app.AccountID))
		if err == nil {
			out = existing
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if err := insertApp(ctx, tx, app); err != nil {
			return err
		}
		created = true
		return appendAudit(ctx, tx, audit)
	})
	if err != nil {
		return nil, false, interpret(createApplicationOutcome(app), err)
	}
	return out, created, nil
}

// insertApp inserts app inside tx, normalising its times to the stored precision and a
// nil AllowedScopes to an empty list.
func insertApp(ctx context.Context, tx *sql.Tx, app *skygate.Application) error {
	app.CreatedAt, app.UpdatedAt = sqlstore.UTC(app.CreatedAt), sqlstore.UTC(app.UpdatedAt)
	var revokedAt *time.Time
	if !app.TokensRevokedAt.IsZero() {
		app.TokensRevokedAt = sqlstore.UTC(app.TokensRevokedAt)
		revokedAt = &app.TokensRevokedAt
	}
	if app.AllowedScopes == nil {
		app.AllowedScopes = []string{}
	}
	scopes, err := sqlstore.JSONText(app.AllowedScopes)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, insertApplication,
		app.ID, app.AccountID, app.Name, app.ClientID, sqlstore.NonNil(app.SecretHash), scopes,
		app.Sandbox, app.ClientCertSHA256, micros(app.CreatedAt), micros(app.UpdatedAt), app.TokenGeneration, nullMicros(revokedAt))
	return err
}

// Application implements skygate.ApplicationStore.
func (s *Store) Application(ctx context.Context, accountID, applicationID string) (*skygate.Application, error) {
	app, err := sqlstore.ScanApplication(s.read.QueryRowContext(ctx, selectApplication, accountID, applicationID))
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "get application", NotFound: applicationNotFound}, err)
	}
	return app, nil
}

// ApplicationAdmin implements skygate.ApplicationStore (admin only: no account).
func (s *Store) ApplicationAdmin(ctx context.Context, applicationID string) (*skygate.Application, error) {
	app, err := sqlstore.ScanApplication(s.read.QueryRowContext(ctx, selectApplicationAdmin, applicationID))
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "get application (admin)", NotFound: applicationNotFound}, err)
	}
	return app, nil
}

// ApplicationByClientID implements skygate.ApplicationStore. The account is returned
// whatever its status; refusing a suspended account is the caller's decision.
func (s *Store) ApplicationByClientID(ctx context.Context, clientID string) (*skygate.Application, *skygate.Account, error) {
	var (
		acc    skygate.Account
		status string
	)
	app, err := sqlstore.ScanApplication(s.read.QueryRowContext(ctx, selectApplicationByClientID, clientID),
		&acc.ID, &acc.Name, &status, sqlstore.TimeCol(&acc.CreatedAt), sqlstore.TimeCol(&acc.UpdatedAt))
	if err != nil {
		return nil, nil, interpret(sqlstore.Outcome{Op: "get application by client id", NotFound: applicationNotFound}, err)
	}
	acc.Status = skygate.AccountStatus(status)
	return app, &acc, nil
}

// ListApplications implements skygate.ApplicationStore. A Limit of zero or less
// returns every application after Offset. An unknown account has none.
func (s *Store) ListApplications(ctx context.Context, accountID string, p skygate.Page) ([]*skygate.Application, int, error) {
	return listPage(ctx, s, "list applications", scanApp, listApplications, countApplications, p, accountID)
}

// DeleteApplication implements skygate.ApplicationStore.
func (s *Store) DeleteApplication(ctx context.Context, accountID, applicationID string, audit *skygate.AuditEvent) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, deleteApplication, accountID, applicationID)
		if err != nil {
			return err
		}
		if err := checkAffected(res, applicationNotFound); err != nil {
			return err
		}
		return appendAudit(ctx, tx, audit)
	})
	return interpret(sqlstore.Outcome{Op: "delete application", NotFound: applicationNotFound}, err)
}

// SetApplicationSecret implements skygate.ApplicationStore.
func (s *Store) SetApplicationSecret(ctx context.Context, accountID, applicationID string, hash []byte, now time.Time, audit *skygate.AuditEvent) (*skygate.Application, error) {
	return s.updateApplication(ctx, "set application secret", audit, updateApplicationSecret,
		sqlstore.NonNil(hash), micros(now), accountID, applicationID)
}

// SetApplicationCertificate implements skygate.ApplicationStore.
func (s *Store) SetApplicationCertificate(ctx context.Context, accountID, applicationID, thumbprint string, now time.Time, audit *skygate.AuditEvent) (*skygate.Application, error) {
	return s.updateApplication(ctx, "set application certificate", audit, updateApplicationCertificate,
		thumbprint, micros(now), accountID, applicationID)
}

// SetApplicationSecretRevokingTokens implements skygate.ApplicationStore in one
// statement (revokeApplicationTokens).
func (s *Store) SetApplicationSecretRevokingTokens(ctx context.Context, accountID, applicationID string, hash []byte, now time.Time, audit *skygate.AuditEvent) (*skygate.Application, error) {
	return s.updateApplication(ctx, "revoke application tokens", audit, revokeApplicationTokens,
		sqlstore.NonNil(hash), micros(now), micros(now), accountID, applicationID)
}

// updateApplication runs an UPDATE … RETURNING of one application and the audit
// record in one transaction and returns the application as written.
func (s *Store) updateApplication(ctx context.Context, op string, audit *skygate.AuditEvent, query string, args ...any) (*skygate.Application, error) {
	var app *skygate.Application
	err := s.inTx(ctx, func(tx *sql.Tx) (err error) {
		if app, err = sqlstore.ScanApplication(tx.QueryRowContext(ctx, query, args...)); err != nil {
			return err
		}
		return appendAudit(ctx, tx, audit)
	})
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: op, NotFound: applicationNotFound}, err)
	}
	return app, nil
}
