-- Access tokens revoked by their client (RFC 7009), by jti, until the token's exp;
-- then they are purged. seq grows with every revocation (AUTOINCREMENT never reuses
-- one): each replica polls for the rows after the last seq it holds and keeps the set
-- in memory, so that verifying a token reads nothing here. Times are INTEGER unix
-- microseconds in UTC.

-- +goose Up
CREATE TABLE token_revocations (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    jti        TEXT NOT NULL UNIQUE,
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    client_id  TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    revoked_at INTEGER NOT NULL
) STRICT;

-- Pruning deletes by expiry.
CREATE INDEX token_revocations_expires_at ON token_revocations (expires_at);

-- +goose Down
DROP TABLE token_revocations;
