-- The events API reads an account's feed in position order after a cursor, and its
-- head (the account's newest position), on every page and long-poll. pos is NULL until
-- the event is positioned, and no reader wants such an event, so the index leaves them
-- out. The retention purge needs no index of its own: it deletes from the head of the
-- seq order (internal/postgres/eventfeed.go).

-- +goose Up
CREATE INDEX events_account_pos ON events (account_id, pos) WHERE pos IS NOT NULL;

-- +goose Down
DROP INDEX events_account_pos;
