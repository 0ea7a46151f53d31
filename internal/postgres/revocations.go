package postgres

import (
	"context"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

const (
	insertTokenRevocation = `INSERT INTO token_revocations (jti, account_id, client_id, expires_at, revoked_at)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT (jti) DO NOTHING`
	tokenRevocationsAfter = `SELECT seq, jti, account_id, client_id, expires_at, revoked_at
		FROM token_revocations WHERE seq > $1 AND expires_at >= $2 ORDER BY seq LIMIT $3`
	tokenRevocation = `SELECT seq, jti, account_id, client_id, expires_at, revoked_at
		FROM token_revocations WHERE account_id = $1 AND jti = $2`
	deleteExpiredTokenRevocations = `DELETE FROM token_revocations WHERE expires_at < $1`
)

// RevokeToken implements skygate.TokenRevocationStore.
func (s *Store) RevokeToken(ctx context.Context, r *skygate.TokenRevocation) error {
	return sqlstore.RevokeToken(ctx, s.db, insertTokenRevocation, r)
}

// TokenRevocationsAfter implements skygate.TokenRevocationStore.
func (s *Store) TokenRevocationsAfter(ctx context.Context, seq int64, now time.Time, limit int) ([]*skygate.TokenRevocation, error) {
	return sqlstore.All(ctx, s.db, "list token revocations", sqlstore.ScanTokenRevocation, tokenRevocationsAfter, seq, s.db.Time(now), limit)
}

// TokenRevocation implements skygate.TokenRevocationStore.
func (s *Store) TokenRevocation(ctx context.Context, accountID, jti string) (*skygate.TokenRevocation, error) {
	return sqlstore.Get(ctx, s.db, sqlstore.Outcome{Op: "get token revocation", NotFound: sqlstore.TokenRevocationNotFound},
		sqlstore.ScanTokenRevocation, tokenRevocation, accountID, jti)
}

// DeleteExpiredTokenRevocations implements skygate.TokenRevocationStore.
func (s *Store) DeleteExpiredTokenRevocations(ctx context.Context, t time.Time) (int64, error) {
	return sqlstore.Affected(ctx, s.db, "delete expired token revocations", deleteExpiredTokenRevocations, s.db.Time(t))
}
