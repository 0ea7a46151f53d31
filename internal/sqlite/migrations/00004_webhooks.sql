-- Webhook subscriptions (at most one per account), the delivery of each outbox event to
-- a subscription, and the log of delivery attempts. Times are INTEGER unix microseconds
-- in UTC; booleans are 0 or 1. Secrets are sealed (AES-GCM) by internal/webhook before
-- they reach the store. A delivery keeps the request body it was created with, so every
-- attempt sends the same bytes.

-- +goose Up
CREATE TABLE webhook_subscriptions (
    id                   TEXT PRIMARY KEY,
    -- UNIQUE is the "one subscription per account" rule; concurrent creates race on it.
    account_id           TEXT NOT NULL UNIQUE REFERENCES accounts (id) ON DELETE CASCADE,
    url                  TEXT NOT NULL,
    active               INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
    secret               BLOB NOT NULL,
    previous_secret      BLOB,
    previous_valid_until INTEGER,
    failing_since        INTEGER,
    created_at           INTEGER NOT NULL,
    updated_at           INTEGER NOT NULL
) STRICT;

-- next_attempt_at is NULL unless the delivery is pending; while an attempt is in flight
-- it equals leased_until, so a crashed dispatcher's delivery becomes due again.
CREATE TABLE webhook_deliveries (
    id               TEXT PRIMARY KEY,
    subscription_id  TEXT NOT NULL REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
    account_id       TEXT NOT NULL,
    event_id         TEXT NOT NULL,
    event_type       TEXT NOT NULL,
    body             TEXT NOT NULL,
    status           TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  INTEGER,
    leased_until     INTEGER,
    last_status_code INTEGER NOT NULL DEFAULT 0,
    last_error       TEXT NOT NULL DEFAULT '',
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    UNIQUE (subscription_id, event_id)
) STRICT;

-- The dispatcher's claim: pending deliveries by due time.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, id) WHERE status = 'pending';
-- A subscription's deliveries, newest first.
CREATE INDEX webhook_deliveries_subscription ON webhook_deliveries (subscription_id, created_at, id);

CREATE TABLE webhook_attempts (
    delivery_id TEXT NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempt     INTEGER NOT NULL,
    at          INTEGER NOT NULL,
    status_code INTEGER NOT NULL,
    latency_ms  INTEGER NOT NULL,
    error       TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (delivery_id, attempt)
) STRICT;

-- +goose Down
DROP TABLE webhook_attempts;
DROP TABLE webhook_deliveries;
DROP TABLE webhook_subscriptions;
