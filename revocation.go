package skygate

import (
	"context"
	"time"
)

// TokenRevocation is one access token revoked by its client (RFC 7009). It names the
// token by its jti and lives until the token would have expired; after that the
// token is refused for its exp anyway, and the revocation is purged.
type TokenRevocation struct {
	// Seq is assigned by the store when the revocation is recorded and grows with
	// every new one, so that replicas poll for revocations after the last they saw.
	Seq int64
	// JTI is the token's jti claim.
	JTI       string
	AccountID string
	ClientID  string
	// ExpiresAt is the token's exp: when the revocation may be purged.
	ExpiresAt time.Time
	RevokedAt time.Time
}

// TokenRevocationStore keeps revoked access tokens until they expire.
type TokenRevocationStore interface {
	// RevokeToken records r (Seq is ignored; times are normalised to the stored
	// precision). Revoking a jti already revoked changes nothing and is no error,
	// whoever revoked it.
	RevokeToken(ctx context.Context, r *TokenRevocation) error
	// TokenRevocationsAfter returns, of every account, at most limit revocations whose
	// Seq is above seq and whose ExpiresAt is not before now, ordered by Seq. Replicas
	// poll it with the highest Seq they hold.
	TokenRevocationsAfter(ctx context.Context, seq int64, now time.Time, limit int) ([]*TokenRevocation, error)
	// TokenRevocation returns the revocation of jti in accountID, or CodeNotFound
	// (also for another account's).
	TokenRevocation(ctx context.Context, accountID, jti string) (*TokenRevocation, error)
	// DeleteExpiredTokenRevocations removes the revocations whose ExpiresAt is before
	// t and returns how many it removed.
	DeleteExpiredTokenRevocations(ctx context.Context, t time.Time) (int64, error)
}
