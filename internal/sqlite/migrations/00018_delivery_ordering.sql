-- Per-object delivery order. An event names the object it is about (ordering_key: a
-- booking, an eSIM, an eSIM order; empty for none); its deliveries carry the key and
-- the event's seq, which is the commit order (the single writer commits one
-- transaction at a time). The claim takes a delivery only when no pending delivery of
-- its subscription and key has a smaller seq or is in flight.
--
-- Existing rows get the empty key: unordered, exactly the promise they were made
-- under. Deriving keys from old payloads would copy the constructors' rules into SQL
-- and rewrite the whole events table; the deliveries pending at the upgrade are a
-- short backlog, and only they can overtake a later event of their object.

-- +goose Up
ALTER TABLE events ADD COLUMN ordering_key TEXT NOT NULL DEFAULT '';
ALTER TABLE webhook_deliveries ADD COLUMN ordering_key TEXT NOT NULL DEFAULT '';
ALTER TABLE webhook_deliveries ADD COLUMN event_seq INTEGER NOT NULL DEFAULT 0;
-- The claim's check: the pending deliveries of one subscription and key, by seq.
CREATE INDEX webhook_deliveries_ordering ON webhook_deliveries (subscription_id, ordering_key, event_seq)
    WHERE status = 'pending' AND ordering_key <> '';

-- +goose Down
DROP INDEX webhook_deliveries_ordering;
ALTER TABLE webhook_deliveries DROP COLUMN event_seq;
ALTER TABLE webhook_deliveries DROP COLUMN ordering_key;
ALTER TABLE events DROP COLUMN ordering_key;
