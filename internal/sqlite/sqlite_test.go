package sqlite_test

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/seal/sealtest"
	"github.com/skygate/skygate/internal/sqlite"
	"github.com/skygate/skygate/internal/sqlite/sqlitetest"
	"github.com/skygate/skygate/internal/storetest"
)

func TestOpenCreatesDirectory(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "a", "b c?#", "skygate.db")
	s, err := sqlite.Open(t.Context(), path, sealtest.New(t), nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	if err := s.Migrate(t.Context()); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	storetest.MustCreateAccount(t, s)
	if got := s.Path(); got != path {
		t.Errorf("Path() = %q, want %q", got, path)
	}
}

func TestOpenRejectsMemory(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"", ":memory:"} {
		if s, err := sqlite.Open(t.Context(), path, sealtest.New(t), nil); err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded, want an error", path)
		}
	}
}

// TestMigrateTwice checks that Migrate is idempotent, on a reopened file too.
func TestMigrateTwice(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "skygate.db")
	for range 2 {
		s, err := sqlite.Open(t.Context(), path, sealtest.New(t), nil)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		for range 2 {
			if err := s.Migrate(t.Context()); err != nil {
				t.Fatalf("Migrate: %v", err)
			}
		}
		storetest.MustCreateAccount(t, s)
		s.Close()
	}
}

// TestConcurrentWritesAndReads checks that the single writer connection queues
// concurrent writers instead of failing with SQLITE_BUSY while readers go on.
func TestConcurrentWritesAndReads(t *testing.T) {
	t.Parallel()
	s := sqlitetest.MustOpen(t)
	acc := storetest.MustCreateAccount(t, s)
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for range 50 {
		wg.Go(func() {
			app := &skygate.Application{ID: storetest.NewID(), AccountID: acc.ID, Name: "app",
				ClientID: storetest.NewID(), SecretHash: []byte("h"), CreatedAt: storetest.T0, UpdatedAt: storetest.T0}
			errs <- s.CreateApplication(t.Context(), app, storetest.Audit("CreateApplication"))
		})
		wg.Go(func() {
			_, _, err := s.ListApplications(t.Context(), acc.ID, skygate.Page{Limit: 10})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	_, total, err := s.ListApplications(t.Context(), acc.ID, skygate.Page{Limit: 1})
	storetest.MustNoError(t, err, "ListApplications")
	if total != 50 {
		t.Fatalf("total = %d, want 50", total)
	}
}
