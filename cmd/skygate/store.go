package main

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/config"
	"github.com/skygate/skygate/internal/postgres"
	"github.com/skygate/skygate/internal/seal"
	"github.com/skygate/skygate/internal/sqlite"
	"github.com/skygate/skygate/internal/telemetry"
)

// database is a store that can also migrate its schema.
type database interface {
	skygate.Store
	Migrate(ctx context.Context) error
	// Pending reports whether the binary has migrations the database lacks.
	Pending(ctx context.Context) (bool, error)
	// OnDeliveries sets a function called after each commit that enqueued webhook
	// deliveries.
	OnDeliveries(f func())
	// OnEvents sets a function called after each commit that wrote events, with
	// their accounts.
	OnEvents(f func(accountIDs []string))
	// Pools returns the connection pools by name, for their statistics in /metrics.
	Pools() map[string]*sql.DB
}

// openStore opens the engine the database URL names, sealing what rests in its rows
// with a subkey of box (seal.PurposeStoreRecords), its statements observed by obs when
// it is not nil. It is the only place that names concrete storage engines.
func openStore(ctx context.Context, cfg *config.Config, box *seal.Box, obs *telemetry.Statements) (database, error) {
	sealer, err := seal.New(box.DeriveKey(seal.PurposeStoreRecords))
	if err != nil {
		return nil, err
	}
	if path, ok := cfg.SQLitePath(); ok {
		return sqlite.Open(ctx, path, sealer, obs)
	}
	return postgres.Open(ctx, cfg.DatabaseURL, cfg.DatabaseMaxConns, sealer, obs)
}

// openMigrated opens the store (openStore) and applies migrations when asked to; when
// not, it refuses a database that lacks migrations of this binary, naming the fix.
func openMigrated(ctx context.Context, cfg *config.Config, log *slog.Logger, box *seal.Box, migrate bool, obs *telemetry.Statements) (database, error) {
	db, err := openStore(ctx, cfg, box, obs)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if migrate {
		if err := db.Migrate(ctx); err != nil {
			_ = db.Close() // the migration's error is the one to report
			return nil, fmt.Errorf("migrate: %w", err)
		}
		log.Info("database migrated", "engine", engineName(cfg))
		return db, nil
	}
	pending, err := db.Pending(ctx)
	if err == nil && pending {
		err = errors.New("the database schema is older than this binary: run `skygate migrate` (or start without SKYGATE_MIGRATE=false)")
	}
	if err != nil {
		_ = db.Close() // err is the one to report
		return nil, err
	}
	return db, nil
}

// checkDatabase reports, before a command creates or migrates anything, a database
// that SKYGATE_DATABASE_URL names but that cannot be used: a PostgreSQL server that
// does not answer, or a SQLite path under a file that is not a directory.
func checkDatabase(ctx context.Context, cfg *config.Config) error {
	if path, ok := cfg.SQLitePath(); ok {
		for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
			fi, err := os.Stat(dir)
			if err == nil && !fi.IsDir() {
				return fmt.Errorf("SKYGATE_DATABASE_URL: %s is not a directory", dir)
			}
			if err == nil || dir == filepath.Dir(dir) {
				return nil
			}
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	db, err := sql.Open("pgx", cfg.DatabaseURL)
	if err == nil {
		err = db.PingContext(ctx)
		_ = db.Close() // only the ping's answer matters
	}
	if err != nil {
		return fmt.Errorf("SKYGATE_DATABASE_URL: cannot reach the database: %w", err)
	}
	return nil
}

// transient returns the engine's classifier of retryable errors.
func transient(cfg *config.Config) func(error) bool {
	if _, ok := cfg.SQLitePath(); ok {
		return sqlite.Transient
	}
	return postgres.Transient
}

func engineName(cfg *config.Config) string {
	if _, ok := cfg.SQLitePath(); ok {
		return "sqlite"
	}
	return "postgres"
}

// masterKeyFile holds the generated master key in development.
const masterKeyFile = "master.key"

// openBox returns the box sealing secrets at rest. In development a missing
// SKYGATE_MASTER_KEY is generated once into the data dir; config.Load refuses a missing
// one elsewhere, and so does openBox.
func openBox(cfg *config.Config, log *slog.Logger) (*seal.Box, error) {
	key := cfg.MasterKey
	if key == nil && cfg.Env != config.EnvDevelopment {
		return nil, fmt.Errorf("SKYGATE_MASTER_KEY is required in %s", cfg.Env)
	}
	if key == nil {
		path := filepath.Join(cfg.DataDir, masterKeyFile)
		b, err := os.ReadFile(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			key = seal.NewMasterKey()
			if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
				return nil, err
			}
			// O_EXCL: two processes starting at once must not each write a different key.
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
			if errors.Is(err, fs.ErrExist) {
				return openBox(cfg, log)
			}
			if err != nil {
				return nil, err
			}
			_, werr := f.WriteString(hex.EncodeToString(key) + "\n")
			if cerr := f.Close(); werr != nil || cerr != nil {
				return nil, errors.Join(werr, cerr)
			}
			log.Warn("generated a development master key; sandbox and production take SKYGATE_MASTER_KEY", "path", path)
		case err != nil:
			return nil, err
		default:
			if key, err = config.ParseMasterKey(strings.TrimSpace(string(b))); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
		}
	}
	return seal.New(key)
}
