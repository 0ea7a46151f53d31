package storetest

import "testing"

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

// TestMustSQLiteIsIsolated checks that two stores from MustSQLite share nothing.
func TestMustSQLiteIsIsolated(t *testing.T) {
	t.Parallel()
	a, b := MustSQLite(t), MustSQLite(t)
	acc := MustCreateAccount(t, a)
	if _, err := b.Account(t.Context(), acc.ID); err == nil {
		t.Fatal("an account created in one store is visible in another")
	}
}

// TestMustSQLiteIsMigrated checks that a store from MustSQLite, a copy of the
// template, has every migration of this binary applied.
func TestMustSQLiteIsMigrated(t *testing.T) {
	t.Parallel()
	s := MustSQLite(t)
	pending, err := s.Pending(t.Context())
	if err != nil {
		t.Fatalf("Pending: %v", err)
	}
	if pending {
		t.Fatal("a store from MustSQLite has pending migrations")
	}
}

// TestMustPostgresIsIsolated checks that two stores from MustPostgres share nothing.
func TestMustPostgresIsIsolated(t *testing.T) {
	t.Parallel()
	a, b := MustPostgres(t), MustPostgres(t)
	acc := MustCreateAccount(t, a)
	if _, err := b.Account(t.Context(), acc.ID); err == nil {
		t.Fatal("an account created in one store is visible in another")
	}
}
