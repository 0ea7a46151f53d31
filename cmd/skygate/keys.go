package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"time"

	"github.com/skygate/skygate/internal/config"
	"github.com/skygate/skygate/internal/oauth"
)

// rotateKeys creates a new signing key, published at once and signing after
// SKYGATE_KEY_PREPUBLISH, and prints its kid and activation time.
func rotateKeys(ctx context.Context, cfg *config.Config, log *slog.Logger, stdout io.Writer) error {
	box, err := openBox(cfg, log)
	if err != nil {
		return err
	}
	db, err := openMigrated(ctx, cfg, log, box, cfg.Migrate, nil)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }() // the work is committed or its error returned
	keys := oauth.NewKeyManager(db, box, time.Now, oauth.KeyManagerOptions{MaxTokenTTL: max(cfg.TokenTTL, time.Hour)})
	k, err := keys.Rotate(ctx, cfg.KeyPrepublish)
	if err != nil {
		return err
	}
	pruned, err := keys.Prune(ctx)
	if err != nil {
		return err
	}
	log.Info("signing key created", "kid", k.ID, "active_at", k.ActiveAt, "pruned", len(pruned))
	return json.NewEncoder(stdout).Encode(map[string]any{"kid": k.ID, "active_at": k.ActiveAt.UTC().Format(time.RFC3339)})
}
