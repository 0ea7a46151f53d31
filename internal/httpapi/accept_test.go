package httpapi

import "testing"

func TestAcceptsCSV(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		accept string
		want   bool
	}{
		{"", true},
		{"  ", true},
		{"text/csv", true},
		{"TEXT/CSV", true},
		{"text/*", true},
		{"*/*", true},
		{"text/csv;charset=utf-8", true},
		{"application/json", false},
		{"text/html, application/json;q=0.9", false},
		{"text/csv;q=0", false},
		{"text/csv; q=0.0", false},
		{"text/csv;q=0, */*", false},
		{"*/*, text/csv;q=0", false},
		{"text/csv;q=0, text/*", false},
		{"text/*;q=0, */*", false},
		{"text/*;q=0, text/csv", true},
		{"*/*;q=0, text/csv;q=0.1", true},
		{"text/csv;q=0.001", true},
		{"text/csv;q=abc", true},
		{"text/csv;q=2", true},
		{"text/csv;q=0, text/csv;q=0.5", true},
		{"text/csvx", false},
	} {
		if got := acceptsCSV(tc.accept); got != tc.want {
			t.Errorf("acceptsCSV(%q) = %v, want %v", tc.accept, got, tc.want)
		}
	}
}
