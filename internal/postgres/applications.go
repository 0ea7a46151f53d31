package postgres

import (
	"context"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

// applicationColumns are the columns sqlstore.ScanApplication reads.
const applicationColumns = `id, account_id, name, client_id, secret_hash, allowed_scopes, sandbox,
	client_cert_sha256, created_at, updated_at, token_generation, tokens_revoked_at,
	previous_secret_hash, previous_secret_expires_at, audiences`

// Every statement but selectApplicationByClientID and selectApplicationAdmin names
// the account, so that an id of another account's application matches nothing.
const (
	insertApplication = `INSERT INTO applications (` + applicationColumns + `)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`
	selectApplication = `SELECT ` + applicationColumns + ` FROM applications
		WHERE account_id = $1 AND id = $2`
	selectApplicationAdmin      = `SELECT ` + applicationColumns + ` FROM applications WHERE id = $1`
	selectApplicationByClientID = `SELECT
		app.id, app.account_id, app.name, app.client_id, app.secret_hash, app.allowed_scopes,
		app.sandbox, app.client_cert_sha256, app.created_at, app.updated_at, app.token_generation,
		app.tokens_revoked_at, app.previous_secret_hash, app.previous_secret_expires_at, app.audiences,
		acc.id, acc.name, acc.status, acc.created_at, acc.updated_at
		FROM applications app JOIN accounts acc ON acc.id = app.account_id
		WHERE app.client_id = $1`
	listApplications = `SELECT ` + applicationColumns + ` FROM applications WHERE account_id = $1
		ORDER BY created_at, id LIMIT $2 OFFSET $3`
	countApplications = `SELECT count(*) FROM applications WHERE account_id = $1`
	deleteApplication = `DELETE FROM applications WHERE account_id = $1 AND id = $2`
	// lockAccount matches no row for an unknown account. FOR NO KEY UPDATE leaves
	// inserts of rows that reference the account free to go on.
	lockAccount             = `SELECT 1 FROM accounts WHERE id = $1 FOR NO KEY UPDATE`
	selectOldestApplication = `SELECT ` + applicationColumns + ` FROM applications
		WHERE account_id = $1 ORDER BY created_at, id LIMIT 1`
	// updateApplicationSecret keeps the replaced hash as the previous secret when $3
	// (its expiry) is not NULL; the right-hand secret_hash is the row's old value.
	updateApplicationSecret = `UPDATE applications SET secret_hash = $1, updated_at = $2,
		previous_secret_hash = CASE WHEN $3::timestamptz IS NULL THEN NULL ELSE secret_hash END,
		previous_secret_expires_at = $3
		WHERE account_id = $4 AND id = $5 RETURNING ` + applicationColumns
	updateApplicationCertificate = `UPDATE applications SET client_cert_sha256 = $1, updated_at = $2
		WHERE account_id = $3 AND id = $4 RETURNING ` + applicationColumns
	// revokeApplicationTokens adds one to the generation in the statement that sets the
	// secret: concurrent ones queue on the row, so none is lost.
	revokeApplicationTokens = `UPDATE applications SET secret_hash = $1,
		token_generation = token_generation + 1, tokens_revoked_at = $2, updated_at = $2,
		previous_secret_hash = NULL, previous_secret_expires_at = NULL
		WHERE account_id = $3 AND id = $4 RETURNING ` + applicationColumns
)

// CreateApplication implements skygate.ApplicationStore. It normalises app's times to
// the stored precision and a nil AllowedScopes to an empty list.
func (s *Store) CreateApplication(ctx context.Context, app *skygate.Application, audit *skygate.AuditEvent) error {
	return sqlstore.CreateApplication(ctx, s.db, insertApplication, app, audit)
}

// CreateFirstApplication implements skygate.ApplicationStore. The account's row lock
// makes concurrent calls for one account run one after the other, so that each reads
// the applications its predecessors committed.
func (s *Store) CreateFirstApplication(ctx context.Context, app *skygate.Application, audit *skygate.AuditEvent) (*skygate.Application, bool, error) {
	return sqlstore.CreateFirstApplication(ctx, s.db, lockAccount, selectOldestApplication, insertApplication, app, audit)
}

// Application implements skygate.ApplicationStore.
func (s *Store) Application(ctx context.Context, accountID, applicationID string) (*skygate.Application, error) {
	return sqlstore.Get(ctx, s.db, sqlstore.Outcome{Op: "get application", NotFound: sqlstore.ApplicationNotFound},
		sqlstore.ScanApp, selectApplication, accountID, applicationID)
}

// ApplicationAdmin implements skygate.ApplicationStore (admin only: no account).
func (s *Store) ApplicationAdmin(ctx context.Context, applicationID string) (*skygate.Application, error) {
	return sqlstore.Get(ctx, s.db, sqlstore.Outcome{Op: "get application (admin)", NotFound: sqlstore.ApplicationNotFound},
		sqlstore.ScanApp, selectApplicationAdmin, applicationID)
}

// ApplicationByClientID implements skygate.ApplicationStore. The account is returned
// whatever its status; refusing a suspended account is the caller's decision.
func (s *Store) ApplicationByClientID(ctx context.Context, clientID string) (*skygate.Application, *skygate.Account, error) {
	return sqlstore.ApplicationByClientID(ctx, s.db, selectApplicationByClientID, clientID)
}

// ListApplications implements skygate.ApplicationStore. A Limit of zero or less
// returns every application after Offset. An unknown account has none.
func (s *Store) ListApplications(ctx context.Context, accountID string, p skygate.Page) ([]*skygate.Application, int, error) {
	return sqlstore.ListPage(ctx, s.db, "list applications", sqlstore.ScanApp, listApplications, countApplications, p, accountID)
}

// DeleteApplication implements skygate.ApplicationStore.
func (s *Store) DeleteApplication(ctx context.Context, accountID, applicationID string, audit *skygate.AuditEvent) error {
	return sqlstore.DeleteApplication(ctx, s.db, deleteApplication, accountID, applicationID, audit)
}

// SetApplicationSecret implements skygate.ApplicationStore.
func (s *Store) SetApplicationSecret(ctx context.Context, accountID, applicationID string, hash []byte, previousUntil, now time.Time, audit *skygate.AuditEvent) (*skygate.Application, error) {
	return sqlstore.UpdateApplication(ctx, s.db, "set application secret", audit, updateApplicationSecret,
		sqlstore.NonNil(hash), s.db.Time(now), s.db.NullTime(sqlstore.PreviousSecretUntil(previousUntil, now)), accountID, applicationID)
}

// SetApplicationCertificate implements skygate.ApplicationStore.
func (s *Store) SetApplicationCertificate(ctx context.Context, accountID, applicationID, thumbprint string, now time.Time, audit *skygate.AuditEvent) (*skygate.Application, error) {
	return sqlstore.UpdateApplication(ctx, s.db, "set application certificate", audit, updateApplicationCertificate,
		thumbprint, s.db.Time(now), accountID, applicationID)
}

// SetApplicationSecretRevokingTokens implements skygate.ApplicationStore in one
// statement (revokeApplicationTokens).
func (s *Store) SetApplicationSecretRevokingTokens(ctx context.Context, accountID, applicationID string, hash []byte, now time.Time, audit *skygate.AuditEvent) (*skygate.Application, error) {
	return sqlstore.UpdateApplication(ctx, s.db, "revoke application tokens", audit, revokeApplicationTokens,
		sqlstore.NonNil(hash), s.db.Time(now), accountID, applicationID)
}
