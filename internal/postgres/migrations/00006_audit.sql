-- The admin audit log: every write an employee makes through the admin API.

-- +goose Up
CREATE TABLE audit_events (
    id          text PRIMARY KEY,
    actor       text NOT NULL,
    action      text NOT NULL,
    target_type text NOT NULL,
    target_id   text NOT NULL,
    account_id  text NOT NULL DEFAULT '',
    request_id  text NOT NULL DEFAULT '',
    at          timestamptz NOT NULL,
    details     text NOT NULL DEFAULT '{}'
);

CREATE INDEX audit_events_at ON audit_events (at DESC, id DESC);

-- +goose Down
DROP TABLE audit_events;
