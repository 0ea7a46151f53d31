-- Rotation of an application's secret with a grace period: the replaced secret's hash
-- keeps authenticating the client until previous_secret_expires_at. Both are NULL when
-- the last rotation had no grace period (or there was none); unix microseconds like
-- every other time.

-- +goose Up
ALTER TABLE applications ADD COLUMN previous_secret_hash BLOB;
ALTER TABLE applications ADD COLUMN previous_secret_expires_at INTEGER;

-- +goose Down
ALTER TABLE applications DROP COLUMN previous_secret_expires_at;
ALTER TABLE applications DROP COLUMN previous_secret_hash;
