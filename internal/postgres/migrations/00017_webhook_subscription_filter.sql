-- A subscription's event-type filter and the record of why it was last disabled.
-- event_types is a JSON array of event types; an empty array accepts every type. The
-- delivery fan-out tests it with jsonb's ? operator, which needs no index: the
-- subscription row is already read by its account. disabled_at and disabled_reason
-- are set when the dispatcher turns the subscription inactive and cleared when it is
-- active again; the console shows them.

-- +goose Up
ALTER TABLE webhook_subscriptions
    ADD COLUMN event_types jsonb NOT NULL DEFAULT '[]'
        CHECK (jsonb_typeof(event_types) = 'array'),
    ADD COLUMN disabled_at timestamptz,
    ADD COLUMN disabled_reason text CHECK (disabled_reason IN ('failing', 'gone'));

-- +goose Down
ALTER TABLE webhook_subscriptions
    DROP COLUMN disabled_reason,
    DROP COLUMN disabled_at,
    DROP COLUMN event_types;
