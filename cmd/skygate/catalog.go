package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/skygate/skygate/internal/catalog"
	"github.com/skygate/skygate/internal/config"
)

// importCatalog validates a catalog document and stores it as the current catalog;
// running servers pick it up within their refresh interval.
func importCatalog(ctx context.Context, cfg *config.Config, log *slog.Logger, path string, stdout io.Writer) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	db, err := openMigrated(ctx, cfg, log, cfg.Migrate)
	if err != nil {
		return err
	}
	defer db.Close()
	svc := catalog.NewService(db, time.Now)
	sum, err := svc.Import(ctx, data)
	if err != nil {
		return fmt.Errorf("catalog import: %w", err)
	}
	return json.NewEncoder(stdout).Encode(sum)
}
