package sqlitetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/skygate/skygate/internal/seal"
	"github.com/skygate/skygate/internal/seal/sealtest"
	"github.com/skygate/skygate/internal/sqlite"
)

// MustOpen returns a migrated store on a new file in a temporary directory; the store
// is closed when the test ends. The file is a copy of one database migrated once per
// test binary (template), so each test pays for a file copy instead of every
// migration.
func MustOpen(tb testing.TB) *sqlite.Store {
	tb.Helper()
	data, err := template()
	if err != nil {
		tb.Fatalf("sqlite template: %v", err)
	}
	path := filepath.Join(tb.TempDir(), "skygate.db")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		tb.Fatalf("copy the sqlite template: %v", err)
	}
	s, err := sqlite.Open(tb.Context(), path, sealtest.New(tb), nil)
	if err != nil {
		tb.Fatalf("sqlite.Open: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("close the store: %v", err)
		}
	})
	return s
}

// template returns the content of an empty SQLite database with every migration
// applied, made on the first call. The migrations write no sealed data, so the copy
// serves stores of any sealer. Closing the store checkpoints its WAL into the main
// file, which alone then holds the whole database.
var template = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "skygate-sqlitetest-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(dir) }() // a temporary directory; the template is read
	sealer, err := seal.New(seal.NewMasterKey())
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "skygate.db")
	s, err := sqlite.Open(context.Background(), path, sealer, nil)
	if err != nil {
		return nil, err
	}
	err = s.Migrate(context.Background())
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
		return nil, fmt.Errorf("the WAL of the migrated database holds %d bytes after Close", fi.Size())
	}
	return os.ReadFile(path)
})
