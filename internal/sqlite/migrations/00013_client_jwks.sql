-- private_key_jwt client authentication (RFC 7523). application_jwks holds the JWK Set
-- an application registered (public keys only, validated by the API), one row per
-- application that has one, removed with it. client_assertions records the jti of
-- every client assertion accepted until it expires: the primary key makes a replayed
-- one fail, whichever replica sees it; the lifecycle loop purges expired rows.
-- Times are unix microseconds like every other time.

-- +goose Up
CREATE TABLE application_jwks (
    application_id TEXT PRIMARY KEY REFERENCES applications (id) ON DELETE CASCADE,
    account_id     TEXT NOT NULL,
    jwks           TEXT NOT NULL,
    updated_at     INTEGER NOT NULL
);
CREATE TABLE client_assertions (
    client_id  TEXT NOT NULL,
    jti        TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (client_id, jti)
);
CREATE INDEX client_assertions_expires_at ON client_assertions (expires_at);

-- +goose Down
DROP TABLE client_assertions;
DROP TABLE application_jwks;
