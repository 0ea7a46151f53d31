-- An application's tokens issued before tokens_not_before are refused (rotate-secret
-- with revoke_tokens). NULL until the first revocation; unix microseconds like every
-- other time.

-- +goose Up
ALTER TABLE applications ADD COLUMN tokens_not_before INTEGER;

-- +goose Down
ALTER TABLE applications DROP COLUMN tokens_not_before;
