package main

import "testing"

func TestGCPercent(t *testing.T) {
	for _, tc := range []struct {
		env         map[string]string
		want        string
		wantFromEnv bool
	}{
		{map[string]string{}, "400", false},
		{map[string]string{"GOGC": "100"}, "100", true},
		{map[string]string{"GOGC": "off"}, "off", true},
	} {
		got, fromEnv := gcPercent(func(k string) string { return tc.env[k] })
		if got != tc.want || fromEnv != tc.wantFromEnv {
			t.Errorf("gcPercent(%v) = %q, %v; want %q, %v", tc.env, got, fromEnv, tc.want, tc.wantFromEnv)
		}
	}
}
