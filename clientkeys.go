package skygate

import (
	"context"
	"time"
)

// ClientKeyStore keeps what private_key_jwt client authentication (RFC 7523) needs:
// the JWK Set an application registered, and the ids (jti) of the client assertions
// already used, so that each is accepted once.
//
// An application may have a secret, a JWK Set, or both; the set is kept beside the
// application and removed with it.
type ClientKeyStore interface {
	// CreateApplicationWithJWKS is ApplicationStore's CreateApplication that also stores
	// the application's JWK Set, in the same write.
	CreateApplicationWithJWKS(ctx context.Context, app *Application, jwks []byte, audit *AuditEvent) error
	// ApplicationJWKS returns the JWK Set (a JSON document the caller validated before
	// storing it) of the account's application, or nil when it has none. An unknown
	// application, or one of another account, is CodeNotFound.
	ApplicationJWKS(ctx context.Context, accountID, applicationID string) ([]byte, error)
	// UseClientAssertion records that clientID used the assertion jti, which expires at
	// expiresAt. A jti the client already used and that was not purged yet is
	// CodeConflict: the unique key of the record decides, so two replicas accepting the
	// same assertion at once cannot both succeed.
	UseClientAssertion(ctx context.Context, clientID, jti string, expiresAt time.Time) error
	// PurgeClientAssertions removes the records of assertions that expired before now
	// and returns how many it removed.
	PurgeClientAssertions(ctx context.Context, now time.Time) (int64, error)
}
