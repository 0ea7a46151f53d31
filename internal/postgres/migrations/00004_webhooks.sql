-- Webhook subscriptions (at most one per account), the delivery of each outbox event to
-- a subscription, and the log of delivery attempts. Secrets are sealed (AES-GCM) by
-- internal/webhook before they reach the store. A delivery keeps the request body it
-- was created with, so every attempt sends the same bytes.

-- +goose Up
CREATE TABLE webhook_subscriptions (
    id                   text PRIMARY KEY,
    -- UNIQUE is the "one subscription per account" rule; concurrent creates race on it.
    account_id           text NOT NULL UNIQUE REFERENCES accounts (id) ON DELETE CASCADE,
    url                  text NOT NULL,
    active               boolean NOT NULL DEFAULT true,
    secret               bytea NOT NULL,
    previous_secret      bytea,
    previous_valid_until timestamptz,
    failing_since        timestamptz,
    created_at           timestamptz NOT NULL,
    updated_at           timestamptz NOT NULL
);

-- next_attempt_at is NULL unless the delivery is pending; while an attempt is in flight
-- it equals leased_until, so a crashed dispatcher's delivery becomes due again.
CREATE TABLE webhook_deliveries (
    id               text PRIMARY KEY,
    subscription_id  text NOT NULL REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
    account_id       text NOT NULL,
    event_id         text NOT NULL,
    event_type       text NOT NULL,
    body             text NOT NULL,
    status           text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempts         integer NOT NULL DEFAULT 0,
    next_attempt_at  timestamptz,
    leased_until     timestamptz,
    last_status_code integer NOT NULL DEFAULT 0,
    last_error       text NOT NULL DEFAULT '',
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    UNIQUE (subscription_id, event_id)
);

-- The dispatcher's claim: pending deliveries by due time.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, id) WHERE status = 'pending';
-- A subscription's deliveries, newest first.
CREATE INDEX webhook_deliveries_subscription ON webhook_deliveries (subscription_id, created_at, id);

CREATE TABLE webhook_attempts (
    delivery_id text NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempt     integer NOT NULL,
    at          timestamptz NOT NULL,
    status_code integer NOT NULL,
    latency_ms  bigint NOT NULL,
    error       text NOT NULL DEFAULT '',
    PRIMARY KEY (delivery_id, attempt)
);

-- +goose Down
DROP TABLE webhook_attempts;
DROP TABLE webhook_deliveries;
DROP TABLE webhook_subscriptions;
