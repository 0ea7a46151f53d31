-- The events API reads an account's feed in seq order after a cursor, and its head
-- (the account's newest seq), on every page and long-poll. The retention purge needs
-- no index of its own: it deletes from the head of the seq order
-- (internal/sqlite/eventfeed.go).

-- +goose Up
CREATE INDEX events_account_seq ON events (account_id, seq);

-- +goose Down
DROP INDEX events_account_seq;
