package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate/internal/config"
)

// TestLoadShutdownWaits: SKYGATE_SHUTDOWN_DELAY (5 s) takes any duration from 0 and
// SKYGATE_SHUTDOWN_TIMEOUT (30 s) any from 1 s, to config.MaxShutdownWait; anything
// else is refused by name, together with the other problems of the configuration.
func TestLoadShutdownWaits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                   string
		delay, timeout         string
		wantDelay, wantTimeout time.Duration
	}{
		{"defaults", "", "", 5 * time.Second, 30 * time.Second},
		{"least", "0s", "1s", 0, time.Second},
		{"plain values", "2s", "1m30s", 2 * time.Second, 90 * time.Second},
		{"spaces around", " 250ms ", "\t45s", 250 * time.Millisecond, 45 * time.Second},
		{"the bound itself", "10m", "10m", config.MaxShutdownWait, config.MaxShutdownWait},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := config.Load(env(map[string]string{"SKYGATE_SHUTDOWN_DELAY": tc.delay, "SKYGATE_SHUTDOWN_TIMEOUT": tc.timeout}))
			if err != nil {
				t.Fatal(err)
			}
			if c.ShutdownDelay != tc.wantDelay || c.ShutdownTimeout != tc.wantTimeout {
				t.Errorf("ShutdownDelay = %v, ShutdownTimeout = %v, want %v and %v", c.ShutdownDelay, c.ShutdownTimeout, tc.wantDelay, tc.wantTimeout)
			}
		})
	}
	for _, tc := range []struct{ name, least string }{
		{"SKYGATE_SHUTDOWN_DELAY", "0s"},
		{"SKYGATE_SHUTDOWN_TIMEOUT", "1s"},
	} {
		bads := []string{"-1s", "10m1s", "1h", "5", "five seconds", "5 s"}
		if tc.least != "0s" {
			bads = append(bads, "0", "0s", "999ms")
		}
		for _, bad := range bads {
			t.Run(tc.name+"="+bad, func(t *testing.T) {
				t.Parallel()
				_, err := config.Load(env(map[string]string{tc.name: bad, "SKYGATE_LOG_LEVEL": "loud"}))
				if want := tc.name + " must be a Go duration from " + tc.least + " to 10m0s"; err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("error %v, want one containing %q", err, want)
				}
				if !strings.Contains(err.Error(), "SKYGATE_LOG_LEVEL") {
					t.Errorf("error %v does not report the other problem too", err)
				}
			})
		}
	}
}
