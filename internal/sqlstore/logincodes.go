package sqlstore

import (
	"context"
	"time"

	"github.com/skygate/skygate"
)

const loginCodeColumns = `code_hash, subject, email, name, roles, scopes, code_challenge,
	redirect_uri, created_at, expires_at, used_at`

var (
	qInsertLoginCode = newStmt(`INSERT INTO login_codes (` + loginCodeColumns + `)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	// One statement both checks and claims the code, so two requests racing for one
	// code cannot both see it unused: the second waits for the first's row lock
	// (PostgreSQL) or for the single writer (SQLite) and then matches nothing.
	qConsumeLoginCode = newStmt(`UPDATE login_codes SET used_at = ?
		WHERE code_hash = ? AND used_at IS NULL AND expires_at > ?
		RETURNING ` + loginCodeColumns)
	qDeleteExpiredLoginCodes = newStmt(`DELETE FROM login_codes WHERE expires_at < ?`)
)

// loginCodeNotFound is the one public message of an unknown, used or expired code.
const loginCodeNotFound = "the login code is unknown, used or expired"

// scanLoginCode reads one row of loginCodeColumns.
func scanLoginCode(row scanner) (*skygate.LoginCode, error) {
	var c skygate.LoginCode
	if err := row.Scan(&c.Hash, &c.Subject, &c.Email, &c.Name, jsonCol{&c.Roles}, jsonCol{&c.Scopes},
		&c.CodeChallenge, &c.RedirectURI, timeCol{&c.CreatedAt}, timeCol{&c.ExpiresAt},
		nullTimeCol{&c.UsedAt}); err != nil {
		return nil, err
	}
	return &c, nil
}

// CreateLoginCode implements skygate.LoginCodeStore. It normalises c's times to the
// stored precision and nil Roles and Scopes to empty lists.
func (s *Store) CreateLoginCode(ctx context.Context, c *skygate.LoginCode) error {
	c.CreatedAt, c.ExpiresAt = utc(c.CreatedAt), utc(c.ExpiresAt)
	if c.UsedAt != nil {
		used := utc(*c.UsedAt)
		c.UsedAt = &used
	}
	if c.Roles == nil {
		c.Roles = []string{}
	}
	if c.Scopes == nil {
		c.Scopes = []string{}
	}
	roles, err := jsonText(c.Roles)
	if err != nil {
		return err
	}
	scopes, err := jsonText(c.Scopes)
	if err != nil {
		return err
	}
	_, err = s.write.ExecContext(ctx, s.q(qInsertLoginCode),
		nonNil(c.Hash), c.Subject, c.Email, c.Name, roles, scopes, c.CodeChallenge, c.RedirectURI,
		s.time(c.CreatedAt), s.time(c.ExpiresAt), s.nullTime(c.UsedAt))
	return s.interpret(outcome{op: "create login code", conflict: "the login code already exists"}, err)
}

// ConsumeLoginCode implements skygate.LoginCodeStore.
func (s *Store) ConsumeLoginCode(ctx context.Context, hash []byte, now time.Time) (*skygate.LoginCode, error) {
	stamp := s.time(utc(now))
	c, err := scanLoginCode(s.write.QueryRowContext(ctx, s.q(qConsumeLoginCode), stamp, nonNil(hash), stamp))
	if err != nil {
		return nil, s.interpret(outcome{op: "consume login code", notFound: loginCodeNotFound}, err)
	}
	return c, nil
}

// DeleteExpiredLoginCodes implements skygate.LoginCodeStore.
func (s *Store) DeleteExpiredLoginCodes(ctx context.Context, t time.Time) (int64, error) {
	res, err := s.write.ExecContext(ctx, s.q(qDeleteExpiredLoginCodes), s.time(t))
	if err != nil {
		return 0, s.interpret(outcome{op: "delete expired login codes"}, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, s.interpret(outcome{op: "delete expired login codes"}, err)
	}
	return n, nil
}
