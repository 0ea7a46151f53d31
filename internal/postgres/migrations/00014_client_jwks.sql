-- private_key_jwt client authentication (RFC 7523). application_jwks holds the JWK Set
-- an application registered (public keys only, validated by the API), one row per
-- application that has one, removed with it. client_assertions records the jti of
-- every client assertion accepted until it expires: the primary key makes a replayed
-- one fail, whichever replica sees it; the lifecycle loop purges expired rows.

-- +goose Up
CREATE TABLE application_jwks (
    application_id text PRIMARY KEY REFERENCES applications (id) ON DELETE CASCADE,
    account_id     text NOT NULL,
    jwks           text NOT NULL,
    updated_at     timestamptz NOT NULL
);
CREATE TABLE client_assertions (
    client_id  text NOT NULL,
    jti        text NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (client_id, jti)
);
CREATE INDEX client_assertions_expires_at ON client_assertions (expires_at);

-- +goose Down
DROP TABLE client_assertions;
DROP TABLE application_jwks;
