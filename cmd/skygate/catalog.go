package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/skygate/skygate"

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
	// The document is checked before anything is created or migrated.
	d, err := catalog.Decode(data)
	if err == nil {
		err = catalog.Validate(d)
	}
	if err != nil {
		return fmt.Errorf("catalog import %s: %w%s", path, err, fieldList(err, 50))
	}
	box, err := openBox(cfg, log)
	if err != nil {
		return err
	}
	db, err := openMigrated(ctx, cfg, log, box, cfg.Migrate, nil)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }() // the work is committed or its error returned
	svc := catalog.NewService(db, time.Now)
	sum, err := svc.Import(ctx, data)
	if err != nil {
		return fmt.Errorf("catalog import %s: %w%s", path, err, fieldList(err, 50))
	}
	return json.NewEncoder(stdout).Encode(sum)
}

// fieldList formats the field errors of a validation error, one per line, at most max
// of them, so that an operator can find the problem in a large document.
func fieldList(err error, max int) string {
	var e *skygate.Error
	if !errors.As(err, &e) || len(e.Fields) == 0 {
		return ""
	}
	var b strings.Builder
	for i, f := range e.Fields {
		if i == max {
			fmt.Fprintf(&b, "\n  … and %d more", len(e.Fields)-max)
			break
		}
		fmt.Fprintf(&b, "\n  %s: %s", f.Field, f.Message)
	}
	return b.String()
}
