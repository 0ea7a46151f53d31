-- One-time authorization codes of employee login (SPEC.md §5.2). A code lives 60 s
-- and works once; it is kept by its SHA-256 only, never in clear. Times are INTEGER
-- unix microseconds in UTC; roles and scopes are JSON text.

-- +goose Up
CREATE TABLE login_codes (
    code_hash      BLOB PRIMARY KEY CHECK (length(code_hash) = 32),
    subject        TEXT NOT NULL,
    email          TEXT NOT NULL DEFAULT '',
    name           TEXT NOT NULL DEFAULT '',
    roles          TEXT NOT NULL DEFAULT '[]',
    scopes         TEXT NOT NULL DEFAULT '[]',
    code_challenge TEXT NOT NULL,
    redirect_uri   TEXT NOT NULL,
    created_at     INTEGER NOT NULL,
    expires_at     INTEGER NOT NULL,
    used_at        INTEGER
) STRICT;

-- Pruning deletes by expiry.
CREATE INDEX login_codes_expires_at ON login_codes (expires_at);

-- +goose Down
DROP TABLE login_codes;
