package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate/internal/config"
)

// TestLoadPassengerDataRetention: 90 days unless SKYGATE_PASSENGER_DATA_RETENTION
// says otherwise; a retention that is not a duration of at least 72 h (the
// Idempotency-Key lifetime, during which a replay answers the booking as first
// accepted) is refused by name.
func TestLoadPassengerDataRetention(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		value string
		want  time.Duration
	}{
		{"", 90 * 24 * time.Hour},
		{"720h", 30 * 24 * time.Hour},
		{"72h30m", 72*time.Hour + 30*time.Minute},
		{"72h", 72 * time.Hour},
	} {
		c, err := config.Load(env(map[string]string{"SKYGATE_PASSENGER_DATA_RETENTION": tc.value}))
		if err != nil {
			t.Fatalf("%q: %v", tc.value, err)
		}
		if c.PassengerDataRetention != tc.want {
			t.Errorf("%q: PassengerDataRetention %v, want %v", tc.value, c.PassengerDataRetention, tc.want)
		}
	}
	for _, bad := range []string{"0", "-24h", "90d", "forever", "71h59m"} {
		_, err := config.Load(env(map[string]string{"SKYGATE_PASSENGER_DATA_RETENTION": bad}))
		if err == nil || !strings.Contains(err.Error(), "SKYGATE_PASSENGER_DATA_RETENTION") {
			t.Errorf("%q: error %v, want one naming SKYGATE_PASSENGER_DATA_RETENTION", bad, err)
		}
	}
}

// TestLoadEventRetention: 30 days unless SKYGATE_EVENT_RETENTION says otherwise; a
// retention outside 24h–8760h, or not a duration, is refused by name.
func TestLoadEventRetention(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		value string
		want  time.Duration
	}{
		{"", 30 * 24 * time.Hour},
		{"24h", 24 * time.Hour},
		{"8760h", 365 * 24 * time.Hour},
		{"168h", 7 * 24 * time.Hour},
	} {
		c, err := config.Load(env(map[string]string{"SKYGATE_EVENT_RETENTION": tc.value}))
		if err != nil {
			t.Fatalf("%q: %v", tc.value, err)
		}
		if c.EventRetention != tc.want {
			t.Errorf("%q: EventRetention %v, want %v", tc.value, c.EventRetention, tc.want)
		}
	}
	for _, bad := range []string{"0", "-24h", "30d", "23h59m", "8761h", "forever"} {
		_, err := config.Load(env(map[string]string{"SKYGATE_EVENT_RETENTION": bad}))
		if err == nil || !strings.Contains(err.Error(), "SKYGATE_EVENT_RETENTION") {
			t.Errorf("%q: error %v, want one naming SKYGATE_EVENT_RETENTION", bad, err)
		}
	}
}
