-- A subscription's event-type filter and the record of why it was last disabled.
-- event_types is a JSON array of event types; an empty array accepts every type.
-- disabled_at (unix microseconds) and disabled_reason are set when the dispatcher
-- turns the subscription inactive and cleared when it is active again; the console
-- shows them.

-- +goose Up
ALTER TABLE webhook_subscriptions ADD COLUMN event_types TEXT NOT NULL DEFAULT '[]'
    CHECK (json_valid(event_types) AND json_type(event_types) = 'array');
ALTER TABLE webhook_subscriptions ADD COLUMN disabled_at INTEGER;
ALTER TABLE webhook_subscriptions ADD COLUMN disabled_reason TEXT
    CHECK (disabled_reason IN ('failing', 'gone'));

-- +goose Down
ALTER TABLE webhook_subscriptions DROP COLUMN disabled_reason;
ALTER TABLE webhook_subscriptions DROP COLUMN disabled_at;
ALTER TABLE webhook_subscriptions DROP COLUMN event_types;
