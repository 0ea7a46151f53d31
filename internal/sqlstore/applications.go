package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/skygate/skygate"
)

const applicationColumns = `id, account_id, name, client_id, secret_hash, allowed_scopes, sandbox,
	client_cert_sha256, created_at, updated_at, token_generation, tokens_revoked_at`

// Every statement but qApplicationByClientID names the account, so that an id of
// another account's application matches nothing.
var (
	qInsertApplication = newStmt(`INSERT INTO applications (` + applicationColumns + `)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	qApplication = newStmt(`SELECT ` + applicationColumns + ` FROM applications
		WHERE account_id = ? AND id = ?`)
	qApplicationByClientID = newStmt(`SELECT
		app.id, app.account_id, app.name, app.client_id, app.secret_hash, app.allowed_scopes,
		app.sandbox, app.client_cert_sha256, app.created_at, app.updated_at, app.token_generation,
		app.tokens_revoked_at,
		acc.id, acc.name, acc.status, acc.created_at, acc.updated_at
		FROM applications app JOIN accounts acc ON acc.id = app.account_id
		WHERE app.client_id = ?`)
	qListApplications = newStmt(`SELECT ` + applicationColumns + ` FROM applications
		WHERE account_id = ? ORDER BY created_at, id ` + limitArg + ` OFFSET ?`)
	qCountApplications = newStmt(`SELECT COUNT(*) FROM applications WHERE account_id = ?`)
	qDeleteApplication = newStmt(`DELETE FROM applications WHERE account_id = ? AND id = ?`)
	qSetSecret         = newStmt(`UPDATE applications SET secret_hash = ?, updated_at = ?
		WHERE account_id = ? AND id = ? RETURNING ` + applicationColumns)
	// qRevokeTokens adds one to the generation in the same statement that sets the
	// secret: the database serialises concurrent ones on the row, so none is lost.
	qRevokeTokens = newStmt(`UPDATE applications SET secret_hash = ?,
		token_generation = token_generation + 1, tokens_revoked_at = ?, updated_at = ?
		WHERE account_id = ? AND id = ? RETURNING ` + applicationColumns)
)

// applicationNotFound is the public message of a missing application, including one
// that belongs to another account.
const applicationNotFound = "application not found"

// scanApplication reads applicationColumns, then extra destinations of the same row.
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

// CreateApplication implements skygate.ApplicationStore. It normalises app's times to
// the stored precision and a nil AllowedScopes to an empty list.
func (s *Store) CreateApplication(ctx context.Context, app *skygate.Application, audit *skygate.AuditEvent) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.insertApplication(ctx, tx, app); err != nil {
			return err
		}
		return s.appendAudit(ctx, tx, audit)
	})
	return s.interpret(createApplicationOutcome(app), err)
}

// qLockAccount changes nothing but locks the account's row until the transaction
// ends (SQLite's single writer is locked already), and matches no row for an unknown
// account.
var (
	qLockAccount       = newStmt(`UPDATE accounts SET status = status WHERE id = ?`)
	qOldestApplication = newStmt(`SELECT ` + applicationColumns + ` FROM applications
		WHERE account_id = ? ORDER BY created_at, id LIMIT 1`)
)

// CreateFirstApplication implements skygate.ApplicationStore. The account's row lock
// makes concurrent calls for one account run one after the other, so that each reads
// the applications its predecessors committed.
func (s *Store) CreateFirstApplication(ctx context.Context, app *skygate.Application, audit *skygate.AuditEvent) (*skygate.Application, bool, error) {
	out, created := app, false
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.q(qLockAccount), app.AccountID)
		if err != nil {
			return err
		}
		if err := s.checkAffected(outcome{notFound: accountNotFound}, res); err != nil {
			return err
		}
		existing, err := scanApplication(tx.QueryRowContext(ctx, s.q(qOldestApplication), app.AccountID))
		if err == nil {
			out = existing
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if err := s.insertApplication(ctx, tx, app); err != nil {
			return err
		}
		created = true
		return s.appendAudit(ctx, tx, audit)
	})
	if err != nil {
		return nil, false, s.interpret(createApplicationOutcome(app), err)
	}
	return out, created, nil
}

// createApplicationOutcome is what the failures of inserting app mean.
func createApplicationOutcome(app *skygate.Application) outcome {
	return outcome{
		op:       "create application",
		conflict: fmt.Sprintf("an application with client_id %q already exists", app.ClientID),
		notFound: accountNotFound,
	}
}

// insertApplication inserts app inside tx, normalising its times to the stored
// precision and a nil AllowedScopes to an empty list.
func (s *Store) insertApplication(ctx context.Context, tx *sql.Tx, app *skygate.Application) error {
	app.CreatedAt, app.UpdatedAt = utc(app.CreatedAt), utc(app.UpdatedAt)
	var revokedAt *time.Time
	if !app.TokensRevokedAt.IsZero() {
		app.TokensRevokedAt = utc(app.TokensRevokedAt)
		revokedAt = &app.TokensRevokedAt
	}
	if app.AllowedScopes == nil {
		app.AllowedScopes = []string{}
	}
	scopes, err := scopesText(app.AllowedScopes)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, s.q(qInsertApplication),
		app.ID, app.AccountID, app.Name, app.ClientID, nonNil(app.SecretHash), scopes,
		app.Sandbox, app.ClientCertSHA256, s.time(app.CreatedAt), s.time(app.UpdatedAt),
		app.TokenGeneration, s.nullTime(revokedAt))
	return err
}

// Application implements skygate.ApplicationStore.
func (s *Store) Application(ctx context.Context, accountID, applicationID string) (*skygate.Application, error) {
	app, err := scanApplication(s.read.QueryRowContext(ctx, s.q(qApplication), accountID, applicationID))
	if err != nil {
		return nil, s.interpret(outcome{op: "get application", notFound: applicationNotFound}, err)
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
	app, err := scanApplication(s.read.QueryRowContext(ctx, s.q(qApplicationByClientID), clientID),
		&acc.ID, &acc.Name, &status, timeCol{&acc.CreatedAt}, timeCol{&acc.UpdatedAt})
	if err != nil {
		return nil, nil, s.interpret(outcome{op: "get application by client id", notFound: applicationNotFound}, err)
	}
	acc.Status = skygate.AccountStatus(status)
	return app, &acc, nil
}

// ListApplications implements skygate.ApplicationStore. A Limit of zero or less
// returns every application after Offset. An unknown account has none.
func (s *Store) ListApplications(ctx context.Context, accountID string, p skygate.Page) ([]*skygate.Application, int, error) {
	return listPage(ctx, s, "list applications", scanApp, s.q(qListApplications), s.q(qCountApplications), p, accountID)
}

// scanApp is scanApplication without extra destinations.
func scanApp(row scanner) (*skygate.Application, error) { return scanApplication(row) }

// DeleteApplication implements skygate.ApplicationStore.
func (s *Store) DeleteApplication(ctx context.Context, accountID, applicationID string, audit *skygate.AuditEvent) error {
	o := outcome{op: "delete application", notFound: applicationNotFound}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.q(qDeleteApplication), accountID, applicationID)
		if err != nil {
			return err
		}
		if err := s.checkAffected(o, res); err != nil {
			return err
		}
		return s.appendAudit(ctx, tx, audit)
	})
	return s.interpret(o, err)
}

// SetApplicationSecret implements skygate.ApplicationStore.
func (s *Store) SetApplicationSecret(ctx context.Context, accountID, applicationID string, hash []byte, now time.Time, audit *skygate.AuditEvent) (*skygate.Application, error) {
	return s.updateApplication(ctx, "set application secret", audit, s.q(qSetSecret), nonNil(hash), s.time(now), accountID, applicationID)
}

// updateApplication runs an UPDATE … RETURNING applicationColumns and the audit
// record in one transaction and returns the application as written.
func (s *Store) updateApplication(ctx context.Context, op string, audit *skygate.AuditEvent, query string, args ...any) (*skygate.Application, error) {
	var app *skygate.Application
	err := s.inTx(ctx, func(tx *sql.Tx) (err error) {
		if app, err = scanApplication(tx.QueryRowContext(ctx, query, args...)); err != nil {
			return err
		}
		return s.appendAudit(ctx, tx, audit)
	})
	if err != nil {
		return nil, s.interpret(outcome{op: op, notFound: applicationNotFound}, err)
	}
	return app, nil
}

var qSetCertificate = newStmt(`UPDATE applications SET client_cert_sha256 = ?, updated_at = ?
	WHERE account_id = ? AND id = ? RETURNING ` + applicationColumns)

// SetApplicationCertificate implements skygate.ApplicationStore.
func (s *Store) SetApplicationCertificate(ctx context.Context, accountID, applicationID, thumbprint string, now time.Time, audit *skygate.AuditEvent) (*skygate.Application, error) {
	return s.updateApplication(ctx, "set application certificate", audit, s.q(qSetCertificate), thumbprint, s.time(now), accountID, applicationID)
}

// SetApplicationSecretRevokingTokens implements skygate.ApplicationStore in one
// statement (qRevokeTokens).
func (s *Store) SetApplicationSecretRevokingTokens(ctx context.Context, accountID, applicationID string, hash []byte, now time.Time, audit *skygate.AuditEvent) (*skygate.Application, error) {
	return s.updateApplication(ctx, "revoke application tokens", audit, s.q(qRevokeTokens), nonNil(hash), s.time(now), s.time(now), accountID, applicationID)
}
