package config_test

import (
	"strings"
	"testing"

	"github.com/skygate/skygate/internal/config"
)

// TestLoadTokenSourceLimit: the token endpoint's per-source limit has defaults, takes
// values, and refuses what is not a non-negative number.
func TestLoadTokenSourceLimit(t *testing.T) {
	t.Parallel()
	c, err := config.Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.TokenSourceRate != 10 || c.TokenSourceBurst != 20 {
		t.Errorf("defaults: %v/s, burst %d", c.TokenSourceRate, c.TokenSourceBurst)
	}
	c, err = config.Load(env(map[string]string{"SKYGATE_TOKEN_SOURCE_RATE_LIMIT": "0.5", "SKYGATE_TOKEN_SOURCE_RATE_BURST": "3"}))
	if err != nil || c.TokenSourceRate != 0.5 || c.TokenSourceBurst != 3 {
		t.Errorf("values: %v %+v", err, c)
	}
	_, err = config.Load(env(map[string]string{"SKYGATE_TOKEN_SOURCE_RATE_LIMIT": "-1", "SKYGATE_TOKEN_SOURCE_RATE_BURST": "many"}))
	for _, want := range []string{"SKYGATE_TOKEN_SOURCE_RATE_LIMIT", "SKYGATE_TOKEN_SOURCE_RATE_BURST"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %s: %v", want, err)
		}
	}
}
