package pgtest

import (
	"testing"

	"github.com/skygate/skygate/internal/storetest"
)

func TestWithSearchPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		dsn  string
		want string
	}{
		{"postgres://root@127.0.0.1:5432/test?sslmode=disable", "postgres://root@127.0.0.1:5432/test?search_path=s1&sslmode=disable"},
		{"postgresql://u:p@h/db", "postgresql://u:p@h/db?search_path=s1"},
		{"postgres://h/db?search_path=public", "postgres://h/db?search_path=s1"},
		{"host=127.0.0.1 dbname=test", "host=127.0.0.1 dbname=test search_path=s1"},
	}
	for _, tt := range tests {
		if got := withSearchPath(t, tt.dsn, "s1"); got != tt.want {
			t.Errorf("withSearchPath(%q) = %q, want %q", tt.dsn, got, tt.want)
		}
	}
}

// TestMustOpenIsIsolated checks that two stores from MustOpen share nothing.
func TestMustOpenIsIsolated(t *testing.T) {
	t.Parallel()
	a, b := MustOpen(t), MustOpen(t)
	acc := storetest.MustCreateAccount(t, a)
	if _, err := b.Account(t.Context(), acc.ID); err == nil {
		t.Fatal("an account created in one store is visible in another")
	}
}
