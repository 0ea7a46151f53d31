package main

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/skygate/skygate/internal/config"
)

// importCatalog validates a catalog document and stores it as the current catalog.
func importCatalog(ctx context.Context, cfg *config.Config, log *slog.Logger, path string, stdout io.Writer) error {
	return errors.New("catalog import: not wired yet")
}
