package main

import (
	"testing"
	"time"
)

func TestServiceDate(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 10, 23, 30, 0, 0, time.FixedZone("UZT", 5*3600))
	tests := []struct {
		notice string
		want   string // a date, or "" for an error
	}{
		{"PT24H", "2026-03-17"},
		{"PT0H", "2026-03-17"},
		{"PT168H", "2026-03-19"},
		{"PT400H", "2026-03-28"},
		{"P1D", "2026-03-17"},
		{"P6D", "2026-03-18"},
		{"PT2H30M", "2026-03-17"},
		{"P1DT12H", "2026-03-17"},
		{"P365D", ""},
		{"P", ""},
		{"PT", ""},
		{"PT-1H", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got, err := serviceDate(now, tt.notice)
		if tt.want == "" {
			if err == nil {
				t.Errorf("serviceDate(%q) = %v, want an error", tt.notice, got)
			}
			continue
		}
		if err != nil || got.Format(time.DateOnly) != tt.want {
			t.Errorf("serviceDate(%q) = %v, %v; want %s", tt.notice, got, err, tt.want)
		}
	}
}
