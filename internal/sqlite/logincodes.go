package sqlite

import (
	"context"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

// loginCodeNotFound is the one public message of an unknown, used or expired code.
const loginCodeNotFound = "the login code is unknown, used or expired"

const (
	insertLoginCode = `INSERT INTO login_codes (code_hash, subject, email, name, roles, scopes,
		code_challenge, redirect_uri, created_at, expires_at, used_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	// One statement both checks and claims the code, so two requests racing for one
	// code cannot both see it unused: the single writer runs them one after the other
	// and the second matches nothing. The time is passed twice.
	consumeLoginCode = `UPDATE login_codes SET used_at = ?
		WHERE code_hash = ? AND used_at IS NULL AND expires_at > ?
		RETURNING code_hash, subject, email, name, roles, scopes, code_challenge,
			redirect_uri, created_at, expires_at, used_at`
	deleteExpiredLoginCodes = `DELETE FROM login_codes WHERE expires_at < ?`
)

// CreateLoginCode implements skygate.LoginCodeStore. It normalises c's times to the
// stored precision and nil Roles and Scopes to empty lists.
func (s *Store) CreateLoginCode(ctx context.Context, c *skygate.LoginCode) error {
	c.CreatedAt, c.ExpiresAt = sqlstore.UTC(c.CreatedAt), sqlstore.UTC(c.ExpiresAt)
	if c.UsedAt != nil {
		t := sqlstore.UTC(*c.UsedAt)
		c.UsedAt = &t
	}
	if c.Roles == nil {
		c.Roles = []string{}
	}
	if c.Scopes == nil {
		c.Scopes = []string{}
	}
	roles, err := sqlstore.JSONText(c.Roles)
	if err != nil {
		return err
	}
	scopes, err := sqlstore.JSONText(c.Scopes)
	if err != nil {
		return err
	}
	_, err = s.write.ExecContext(ctx, insertLoginCode,
		sqlstore.NonNil(c.Hash), c.Subject, c.Email, c.Name, roles, scopes, c.CodeChallenge,
		c.RedirectURI, micros(c.CreatedAt), micros(c.ExpiresAt), nullMicros(c.UsedAt))
	return interpret(sqlstore.Outcome{Op: "create login code", Conflict: "the login code already exists"}, err)
}

// ConsumeLoginCode implements skygate.LoginCodeStore.
func (s *Store) ConsumeLoginCode(ctx context.Context, hash []byte, now time.Time) (*skygate.LoginCode, error) {
	at := micros(now)
	c, err := sqlstore.ScanLoginCode(s.write.QueryRowContext(ctx, consumeLoginCode, at, sqlstore.NonNil(hash), at))
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "consume login code", NotFound: loginCodeNotFound}, err)
	}
	return c, nil
}

// DeleteExpiredLoginCodes implements skygate.LoginCodeStore.
func (s *Store) DeleteExpiredLoginCodes(ctx context.Context, t time.Time) (int64, error) {
	res, err := s.write.ExecContext(ctx, deleteExpiredLoginCodes, micros(t))
	if err != nil {
		return 0, interpret(sqlstore.Outcome{Op: "delete expired login codes"}, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, interpret(sqlstore.Outcome{Op: "delete expired login codes"}, err)
	}
	return n, nil
}
