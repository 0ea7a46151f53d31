package sqlitetest

import (
	"testing"

	"github.com/skygate/skygate/internal/storetest"
)

// TestMustOpenIsIsolated checks that two stores from MustOpen share nothing.
func TestMustOpenIsIsolated(t *testing.T) {
	t.Parallel()
	a, b := MustOpen(t), MustOpen(t)
	acc := storetest.MustCreateAccount(t, a)
	if _, err := b.Account(t.Context(), acc.ID); err == nil {
		t.Fatal("an account created in one store is visible in another")
	}
}

// TestMustOpenIsMigrated checks that a store from MustOpen, a copy of the template,
// has every migration of this binary applied.
func TestMustOpenIsMigrated(t *testing.T) {
	t.Parallel()
	s := MustOpen(t)
	pending, err := s.Pending(t.Context())
	if err != nil {
		t.Fatalf("Pending: %v", err)
	}
	if pending {
		t.Fatal("a store from MustOpen has pending migrations")
	}
}
