-- One-time authorization codes of employee login (SPEC.md §5.2). A code lives 60 s
-- and works once; it is kept by its SHA-256 only, never in clear. Roles and scopes are
-- JSON text, the same as on SQLite.

-- +goose Up
CREATE TABLE login_codes (
    code_hash      bytea PRIMARY KEY CHECK (octet_length(code_hash) = 32),
    subject        text NOT NULL,
    email          text NOT NULL DEFAULT '',
    name           text NOT NULL DEFAULT '',
    roles          text NOT NULL DEFAULT '[]',
    scopes         text NOT NULL DEFAULT '[]',
    code_challenge text NOT NULL,
    redirect_uri   text NOT NULL,
    created_at     timestamptz NOT NULL,
    expires_at     timestamptz NOT NULL,
    used_at        timestamptz
);

-- Pruning deletes by expiry.
CREATE INDEX login_codes_expires_at ON login_codes (expires_at);

-- +goose Down
DROP TABLE login_codes;
