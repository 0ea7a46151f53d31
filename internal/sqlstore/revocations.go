package sqlstore

import (
	"context"

	"github.com/skygate/skygate"
)

// TokenRevocationNotFound is the message of an unknown revocation.
const TokenRevocationNotFound = "the token is not revoked"

// RevokeToken is skygate.TokenRevocationStore's RevokeToken with insert, which takes
// jti, account_id, client_id, expires_at, revoked_at and ignores a jti already stored.
func RevokeToken(ctx context.Context, db *DB, insert string, r *skygate.TokenRevocation) error {
	r.ExpiresAt, r.RevokedAt = UTC(r.ExpiresAt), UTC(r.RevokedAt)
	return Exec(ctx, db, Outcome{Op: "revoke token", NotFound: "the account does not exist"}, nil, insert,
		r.JTI, r.AccountID, r.ClientID, db.Time(r.ExpiresAt), db.Time(r.RevokedAt))
}

// ScanTokenRevocation reads seq, jti, account_id, client_id, expires_at, revoked_at.
func ScanTokenRevocation(row Scanner) (*skygate.TokenRevocation, error) {
	var r skygate.TokenRevocation
	if err := row.Scan(&r.Seq, &r.JTI, &r.AccountID, &r.ClientID, timeCol{&r.ExpiresAt}, timeCol{&r.RevokedAt}); err != nil {
		return nil, err
	}
	return &r, nil
}
