package sqlite

import (
	"context"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

var _ skygate.ClientKeyStore = (*Store)(nil)

var _ skygate.ApplicationUpdater = (*Store)(nil)

// clientKeyStatements are the statements of skygate.ClientKeyStore; see
// sqlstore.ClientKeyStatements.
var clientKeyStatements = &sqlstore.ClientKeyStatements{
	Touch: `UPDATE applications SET updated_at = ? WHERE account_id = ? AND id = ?`,
	Select: `SELECT k.jwks FROM applications app
		LEFT JOIN application_jwks k ON k.application_id = app.id
		WHERE app.account_id = ? AND app.id = ?`,
	Upsert: `INSERT INTO application_jwks (application_id, account_id, jwks, updated_at)
		VALUES (?, ?, ?, ?)
		ON CONFLICT (application_id) DO UPDATE SET jwks = excluded.jwks, updated_at = excluded.updated_at
		WHERE application_jwks.account_id = excluded.account_id`,
	Delete: `DELETE FROM application_jwks WHERE account_id = ? AND application_id = ?`,
	Use:    `INSERT INTO client_assertions (client_id, jti, expires_at) VALUES (?, ?, ?)`,
	Purge:  `DELETE FROM client_assertions WHERE expires_at < ?`,
}

// CreateApplicationWithJWKS implements skygate.ClientKeyStore.
func (s *Store) CreateApplicationWithJWKS(ctx context.Context, app *skygate.Application, jwks []byte, audit *skygate.AuditEvent) error {
	return sqlstore.CreateApplicationWithJWKS(ctx, s.db, insertApplication, clientKeyStatements, app, jwks, audit)
}

// ApplicationJWKS implements skygate.ClientKeyStore.
func (s *Store) ApplicationJWKS(ctx context.Context, accountID, applicationID string) ([]byte, error) {
	return sqlstore.ApplicationJWKS(ctx, s.db, clientKeyStatements, accountID, applicationID)
}

// setApplicationAudiences names the account, so that another account's application
// matches nothing.
const setApplicationAudiences = `UPDATE applications SET audiences = ?, updated_at = ?
	WHERE account_id = ? AND id = ?`

// UpdateApplication implements skygate.ApplicationUpdater.
func (s *Store) UpdateApplication(ctx context.Context, accountID, applicationID string, u skygate.ApplicationUpdate, now time.Time, audit *skygate.AuditEvent) error {
	return sqlstore.UpdateApplicationSettings(ctx, s.db, clientKeyStatements, setApplicationAudiences, accountID, applicationID, u, now, audit)
}

// UseClientAssertion implements skygate.ClientKeyStore.
func (s *Store) UseClientAssertion(ctx context.Context, clientID, jti string, expiresAt time.Time) error {
	return sqlstore.UseClientAssertion(ctx, s.db, clientKeyStatements, clientID, jti, expiresAt)
}

// PurgeClientAssertions implements skygate.ClientKeyStore.
func (s *Store) PurgeClientAssertions(ctx context.Context, now time.Time) (int64, error) {
	return sqlstore.PurgeClientAssertions(ctx, s.db, clientKeyStatements, now)
}
