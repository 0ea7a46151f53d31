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

// TestMustPostgresIsIsolated checks that two stores from MustPostgres share nothing.
func TestMustPostgresIsIsolated(t *testing.T) {
	t.Parallel()
	a, b := MustPostgres(t), MustPostgres(t)
	acc := MustCreateAccount(t, a)
	if _, err := b.Account(t.Context(), acc.ID); err == nil {
		t.Fatal("an account created in one store is visible in another")
	}
}
