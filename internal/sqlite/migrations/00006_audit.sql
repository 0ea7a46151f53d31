-- The admin audit log: every write an employee makes through the admin API.

-- +goose Up
CREATE TABLE audit_events (
    id          TEXT PRIMARY KEY,
    actor       TEXT NOT NULL,
    action      TEXT NOT NULL,
    target_type TEXT NOT NULL,
    target_id   TEXT NOT NULL,
    account_id  TEXT NOT NULL DEFAULT '',
    request_id  TEXT NOT NULL DEFAULT '',
    at          INTEGER NOT NULL,
    details     TEXT NOT NULL DEFAULT '{}'
) STRICT;

CREATE INDEX audit_events_at ON audit_events (at DESC, id DESC);

-- +goose Down
DROP TABLE audit_events;
