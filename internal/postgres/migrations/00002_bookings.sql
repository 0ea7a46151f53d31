-- Fast-track bookings, the idempotency records of create-booking and the event outbox.
-- flight, passengers and status_history are JSON text, the same as on SQLite. The
-- pass columns are NULL until the booking is issued.

-- +goose Up
CREATE TABLE bookings (
    id                text PRIMARY KEY,
    account_id        text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    client_id         text NOT NULL DEFAULT '',
    status            text NOT NULL,
    fast_track_id     text NOT NULL,
    service_date      text NOT NULL,
    flight            text NOT NULL,
    passengers        text NOT NULL DEFAULT '[]',
    partner_reference text NOT NULL DEFAULT '',
    confirm_before    timestamptz,
    status_history    text NOT NULL DEFAULT '[]',
    pass_code         text UNIQUE,
    pass_payload      text,
    pass_valid_from   timestamptz,
    pass_valid_until  timestamptz,
    created_at        timestamptz NOT NULL,
    updated_at        timestamptz NOT NULL
);

-- Lists of one account, newest first.
CREATE INDEX bookings_account_created ON bookings (account_id, created_at, id);
-- The worker: Pending bookings by age, Issued bookings by confirmation deadline.
CREATE INDEX bookings_status_created ON bookings (status, created_at, id);
CREATE INDEX bookings_status_confirm_before ON bookings (status, confirm_before, id);

CREATE TABLE idempotency_records (
    account_id  text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    operation   text NOT NULL,
    idem_key    text NOT NULL,
    fingerprint bytea NOT NULL,
    status_code integer NOT NULL,
    resource_id text NOT NULL DEFAULT '',
    body        bytea NOT NULL,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    PRIMARY KEY (account_id, operation, idem_key)
);

CREATE INDEX idempotency_records_expires ON idempotency_records (expires_at);

-- seq is assigned at insert; writers take a table lock before inserting events (see
-- internal/sqlstore/events.go) so that seq order is also the order of visibility.
CREATE TABLE events (
    seq        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id         text NOT NULL UNIQUE,
    account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    type       text NOT NULL,
    data       text NOT NULL,
    created_at timestamptz NOT NULL
);

CREATE INDEX events_account_created ON events (account_id, created_at);

-- +goose Down
DROP TABLE events;
DROP TABLE idempotency_records;
DROP TABLE bookings;
