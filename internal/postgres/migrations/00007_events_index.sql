-- The outbox is read by seq (the dispatcher) and by id (one event); no query reads it by
-- account and time, and accounts are never deleted, so events_account_created only
-- cost every event insert (three per booking) one more B-tree write.

-- +goose Up
DROP INDEX events_account_created;

-- +goose Down
CREATE INDEX events_account_created ON events (account_id, created_at);
