-- Access tokens revoked by their client (RFC 7009), by jti, until the token's exp;
-- then they are purged. seq grows with every revocation: each replica polls for the
-- rows after the last seq it holds and keeps the set in memory, so that verifying a
-- token reads nothing here.

-- +goose Up
CREATE TABLE token_revocations (
    seq        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    jti        text NOT NULL UNIQUE,
    account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    client_id  text NOT NULL,
    expires_at timestamptz NOT NULL,
    revoked_at timestamptz NOT NULL
);

-- Pruning deletes by expiry.
CREATE INDEX token_revocations_expires_at ON token_revocations (expires_at);

-- +goose Down
DROP TABLE token_revocations;
