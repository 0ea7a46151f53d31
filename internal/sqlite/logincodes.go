package sqlite

import (
	"context"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

const (
	insertLoginCode = `INSERT INTO login_codes (code_hash, subject, email, name, roles, scopes,
		code_challenge, redirect_uri, created_at, expires_at, used_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	// One statement both checks and claims the code, so two requests racing for one
	// code cannot both see it unused: the single writer runs them one after the other
	// and the second matches nothing.
	consumeLoginCode = `UPDATE login_codes SET used_at = ?1
		WHERE code_hash = ?2 AND used_at IS NULL AND expires_at > ?1
		RETURNING code_hash, subject, email, name, roles, scopes, code_challenge,
			redirect_uri, created_at, expires_at, used_at`
	deleteExpiredLoginCodes = `DELETE FROM login_codes WHERE expires_at < ?`
)

// CreateLoginCode implements skygate.LoginCodeStore. It normalises c's times to the
// stored precision and nil Roles and Scopes to empty lists.
func (s *Store) CreateLoginCode(ctx context.Context, c *skygate.LoginCode) error {
	return sqlstore.CreateLoginCode(ctx, s.db, insertLoginCode, c)
}

// ConsumeLoginCode implements skygate.LoginCodeStore.
func (s *Store) ConsumeLoginCode(ctx context.Context, hash []byte, now time.Time) (*skygate.LoginCode, error) {
	return sqlstore.WriteRow(ctx, s.db, sqlstore.Outcome{Op: "consume login code", NotFound: sqlstore.LoginCodeNotFound},
		nil, sqlstore.ScanLoginCode, consumeLoginCode, s.db.Time(now), sqlstore.NonNil(hash))
}

// DeleteExpiredLoginCodes implements skygate.LoginCodeStore.
func (s *Store) DeleteExpiredLoginCodes(ctx context.Context, t time.Time) (int64, error) {
	return sqlstore.Affected(ctx, s.db, "delete expired login codes", deleteExpiredLoginCodes, s.db.Time(t))
}
