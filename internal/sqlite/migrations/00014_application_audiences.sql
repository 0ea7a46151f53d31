-- An application's resource audiences (RFC 9068 §3): absolute URIs that its access
-- tokens name in aud beside the service's own audience, as a JSON array like
-- allowed_scopes. Existing applications have none, so their tokens keep one audience.

-- +goose Up
ALTER TABLE applications ADD COLUMN audiences TEXT NOT NULL DEFAULT '[]';

-- +goose Down
ALTER TABLE applications DROP COLUMN audiences;
