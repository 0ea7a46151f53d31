-- Fast-track bookings, the idempotency records of create-booking and the event outbox.
-- Times are INTEGER unix microseconds in UTC; flight, passengers and status_history
-- are JSON text. The pass columns are NULL until the booking is issued.

-- +goose Up
CREATE TABLE bookings (
    id                TEXT PRIMARY KEY,
    account_id        TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    client_id         TEXT NOT NULL DEFAULT '',
    status            TEXT NOT NULL,
    fast_track_id     TEXT NOT NULL,
    service_date      TEXT NOT NULL,
    flight            TEXT NOT NULL,
    passengers        TEXT NOT NULL DEFAULT '[]',
    partner_reference TEXT NOT NULL DEFAULT '',
    confirm_before    INTEGER,
    status_history    TEXT NOT NULL DEFAULT '[]',
    pass_code         TEXT UNIQUE,
    pass_payload      TEXT,
    pass_valid_from   INTEGER,
    pass_valid_until  INTEGER,
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL
) STRICT;

-- Lists of one account, newest first.
CREATE INDEX bookings_account_created ON bookings (account_id, created_at, id);
-- The worker: Pending bookings by age, Issued bookings by confirmation deadline.
CREATE INDEX bookings_status_created ON bookings (status, created_at, id);
CREATE INDEX bookings_status_confirm_before ON bookings (status, confirm_before, id);

CREATE TABLE idempotency_records (
    account_id  TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    operation   TEXT NOT NULL,
    idem_key    TEXT NOT NULL,
    fingerprint BLOB NOT NULL,
    status_code INTEGER NOT NULL,
    resource_id TEXT NOT NULL DEFAULT '',
    body        BLOB NOT NULL,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    PRIMARY KEY (account_id, operation, idem_key)
) STRICT;

CREATE INDEX idempotency_records_expires ON idempotency_records (expires_at);

-- AUTOINCREMENT: a sequence number is never reused, even after the newest row is
-- deleted, so a reader's cursor stays valid.
CREATE TABLE events (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT NOT NULL UNIQUE,
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    type       TEXT NOT NULL,
    data       TEXT NOT NULL,
    created_at INTEGER NOT NULL
) STRICT;

CREATE INDEX events_account_created ON events (account_id, created_at);

-- +goose Down
DROP TABLE events;
DROP TABLE idempotency_records;
DROP TABLE bookings;
