-- Accounts, their applications, the token signing keys and the catalog.
-- Times are INTEGER unix microseconds in UTC; lists are JSON text.

-- +goose Up
CREATE TABLE accounts (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    status     TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;

CREATE INDEX accounts_created_at ON accounts (created_at, id);
CREATE INDEX accounts_updated_at ON accounts (updated_at);

CREATE TABLE applications (
    id                 TEXT PRIMARY KEY,
    account_id         TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name               TEXT NOT NULL,
    client_id          TEXT NOT NULL UNIQUE,
    secret_hash        BLOB NOT NULL,
    allowed_scopes     TEXT NOT NULL DEFAULT '[]',
    sandbox            INTEGER NOT NULL DEFAULT 0,
    client_cert_sha256 TEXT NOT NULL DEFAULT '',
    created_at         INTEGER NOT NULL,
    updated_at         INTEGER NOT NULL
) STRICT;

CREATE INDEX applications_account ON applications (account_id, created_at, id);

CREATE TABLE signing_keys (
    kid             TEXT PRIMARY KEY,
    private_key_enc BLOB NOT NULL,
    public_key_der  BLOB NOT NULL,
    created_at      INTEGER NOT NULL,
    active_at       INTEGER NOT NULL
) STRICT;

CREATE TABLE catalog_documents (
    version    INTEGER PRIMARY KEY,
    data       BLOB NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;

-- +goose Down
DROP TABLE catalog_documents;
DROP TABLE signing_keys;
DROP TABLE applications;
DROP TABLE accounts;
