-- Revocation of an application's tokens (rotate-secret with revoke_tokens): each one
-- adds one to token_generation, and a token that carries a lower generation is
-- refused. tokens_revoked_at is when the last one happened, NULL until the first;
-- unix microseconds like every other time.

-- +goose Up
ALTER TABLE applications ADD COLUMN token_generation INTEGER NOT NULL DEFAULT 0;
ALTER TABLE applications ADD COLUMN tokens_revoked_at INTEGER;

-- +goose Down
ALTER TABLE applications DROP COLUMN tokens_revoked_at;
ALTER TABLE applications DROP COLUMN token_generation;
