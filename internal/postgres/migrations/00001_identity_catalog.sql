-- Accounts, their applications, the token signing keys and the catalog.
-- Lists are JSON text, the same as on SQLite.

-- +goose Up
CREATE TABLE accounts (
    id         text PRIMARY KEY,
    name       text NOT NULL UNIQUE,
    status     text NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);

CREATE INDEX accounts_created_at ON accounts (created_at, id);
CREATE INDEX accounts_updated_at ON accounts (updated_at);

CREATE TABLE applications (
    id                 text PRIMARY KEY,
    account_id         text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name               text NOT NULL,
    client_id          text NOT NULL UNIQUE,
    secret_hash        bytea NOT NULL,
    allowed_scopes     text NOT NULL DEFAULT '[]',
    sandbox            boolean NOT NULL DEFAULT false,
    client_cert_sha256 text NOT NULL DEFAULT '',
    created_at         timestamptz NOT NULL,
    updated_at         timestamptz NOT NULL
);

CREATE INDEX applications_account ON applications (account_id, created_at, id);

CREATE TABLE signing_keys (
    kid             text PRIMARY KEY,
    private_key_enc bytea NOT NULL,
    public_key_der  bytea NOT NULL,
    created_at      timestamptz NOT NULL,
    active_at       timestamptz NOT NULL
);

CREATE TABLE catalog_documents (
    version    bigint PRIMARY KEY,
    data       bytea NOT NULL,
    updated_at timestamptz NOT NULL
);

-- +goose Down
DROP TABLE catalog_documents;
DROP TABLE signing_keys;
DROP TABLE applications;
DROP TABLE accounts;
