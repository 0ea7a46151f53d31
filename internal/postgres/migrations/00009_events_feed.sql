-- The outbox's feed position. Writers used to take a table lock on events before their
-- insert and hold it to their commit, so that seq, assigned at insert, would also be the
-- order in which events became visible. That lock serialised the commit of every
-- transaction that writes an event (every booking, eSIM order and transition, on every
-- replica), one fsync after another, and a holder that waited for its own process (a
-- busy core, a GC pause) held up all the others: run X3 in docs/performance.md saw
-- booking p99 of 61-155 ms at 46 % of one core.
--
-- Now writers insert without a lock and seq only orders the inserts. pos, the position
-- EventsAfter reads by, is assigned to committed events by the reader itself, in a
-- transaction that holds an advisory lock (internal/sqlstore/events.go): such
-- transactions run one at a time and take ever larger values, so pos order is the
-- order in which positions become visible. Existing events keep their seq as position.

-- +goose Up
ALTER TABLE events ADD COLUMN pos bigint;
UPDATE events SET pos = seq;
CREATE SEQUENCE events_pos_seq OWNED BY events.pos;
SELECT setval('events_pos_seq', COALESCE((SELECT max(seq) FROM events), 0) + 1, false);
CREATE UNIQUE INDEX events_pos ON events (pos) WHERE pos IS NOT NULL;
CREATE INDEX events_unpositioned ON events (seq) WHERE pos IS NULL;

-- +goose Down
DROP INDEX events_unpositioned;
DROP INDEX events_pos;
ALTER TABLE events DROP COLUMN pos;
