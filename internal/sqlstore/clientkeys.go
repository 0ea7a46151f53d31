package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/skygate/skygate"
)

// ClientKeyStatements are an engine's statements of skygate.ClientKeyStore.
type ClientKeyStatements struct {
	// Touch sets updated_at (1) of the application (account id 2, id 3); it changes no
	// row for another account's application.
	Touch string
	// Select reads the jwks of the application (account id 1, id 2) joined to the
	// application, NULL when it has none; no row when the application is unknown.
	Select string
	// Upsert stores (application id, account id, jwks, updated_at).
	Upsert string
	// Delete removes the jwks of (account id, application id).
	Delete string
	// Use inserts (client id, jti, expires_at).
	Use string
	// Purge deletes the records expired before its argument.
	Purge string
}

// CreateApplicationWithJWKS is skygate.ClientKeyStore's CreateApplicationWithJWKS:
// insert (as in CreateApplication), the set and audit's record in one transaction.
func CreateApplicationWithJWKS(ctx context.Context, db *DB, insert string, st *ClientKeyStatements, app *skygate.Application, jwks []byte, audit *skygate.AuditEvent) error {
	if err := Audited("create application", audit); err != nil {
		return err
	}
	args, err := applicationArgs(db, app)
	if err != nil {
		return err
	}
	err = db.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.ExecContext(ctx, insert, args...); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, st.Upsert, app.ID, app.AccountID, string(jwks), db.Time(app.CreatedAt)); err != nil {
			return err
		}
		return db.Audit(ctx, tx, audit)
	})
	return db.Interpret(createApplicationOutcome(app), err)
}

// ApplicationJWKS is skygate.ClientKeyStore's ApplicationJWKS.
func ApplicationJWKS(ctx context.Context, db *DB, st *ClientKeyStatements, accountID, applicationID string) ([]byte, error) {
	return Get(ctx, db, Outcome{Op: "get application jwks", NotFound: ApplicationNotFound}, func(row Scanner) ([]byte, error) {
		var jwks sql.NullString
		if err := row.Scan(&jwks); err != nil || !jwks.Valid {
			return nil, err
		}
		return []byte(jwks.String), nil
	}, st.Select, accountID, applicationID)
}

// ClientAssertionUsed is the public message of a replayed client assertion.
const ClientAssertionUsed = "the client assertion was used already"

// UseClientAssertion is skygate.ClientKeyStore's UseClientAssertion: a plain insert
// whose primary key refuses a replay.
func UseClientAssertion(ctx context.Context, db *DB, st *ClientKeyStatements, clientID, jti string, expiresAt time.Time) error {
	_, err := db.Write.ExecContext(ctx, st.Use, clientID, jti, db.Time(expiresAt))
	if err != nil && db.Classify(err) == UniqueViolation {
		return &skygate.Error{Code: skygate.CodeConflict, Message: ClientAssertionUsed, Err: err}
	}
	return db.Interpret(Outcome{Op: "use client assertion"}, err)
}

// PurgeClientAssertions is skygate.ClientKeyStore's PurgeClientAssertions.
func PurgeClientAssertions(ctx context.Context, db *DB, st *ClientKeyStatements, now time.Time) (int64, error) {
	return Affected(ctx, db, "purge client assertions", st.Purge, db.Time(now))
}
