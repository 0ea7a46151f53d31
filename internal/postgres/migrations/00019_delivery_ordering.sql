-- Per-object delivery order. An event names the object it is about (ordering_key: a
-- booking, an eSIM, an eSIM order; empty for none); its deliveries carry the key and
-- the event's seq. One object's writers are serialised by the object's row lock, so
-- seq, assigned at insert, is the commit order of one object's events even though it
-- is not the feed's order across objects (00009). The claim takes a delivery only when
-- no pending delivery of its subscription and key has a smaller seq or is in flight.
--
-- Existing rows get the empty key: unordered, exactly the promise they were made
-- under. Deriving keys from old payloads would copy the constructors' rules into SQL
-- and rewrite the whole events table in this transaction; the deliveries pending at
-- the upgrade are a short backlog, and only they can overtake a later event of their
-- object. Adding a column with a constant default rewrites nothing.

-- +goose Up
ALTER TABLE events ADD COLUMN ordering_key text NOT NULL DEFAULT '';
ALTER TABLE webhook_deliveries ADD COLUMN ordering_key text NOT NULL DEFAULT '',
    ADD COLUMN event_seq bigint NOT NULL DEFAULT 0;
-- The claim's check: the pending deliveries of one subscription and key, by seq.
CREATE INDEX webhook_deliveries_ordering ON webhook_deliveries (subscription_id, ordering_key, event_seq)
    WHERE status = 'pending' AND ordering_key <> '';

-- +goose Down
DROP INDEX webhook_deliveries_ordering;
ALTER TABLE webhook_deliveries DROP COLUMN event_seq, DROP COLUMN ordering_key;
ALTER TABLE events DROP COLUMN ordering_key;
