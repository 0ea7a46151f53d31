package deploy

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate/internal/config"
)

// TestSystemd checks systemd/skygate.service with systemd-analyze: `verify` reports
// nothing (an unknown or misspelt directive, a missing binary), and `security`
// rates its exposure OK. The unit's binary path is the only change: verify needs an
// executable there, and this machine has skygate elsewhere. It also checks that
// skygate.env names only the service's variables, that production accepts it once
// its empty values are filled, and that TimeoutStopSec covers the drain.
func TestSystemd(t *testing.T) {
	unit := string(readFile(t, "systemd/skygate.service"))
	directives := unitDirectives(unit)
	env := envFile(t)

	stop, err := time.ParseDuration(directives["TimeoutStopSec"])
	if err != nil {
		t.Fatalf("TimeoutStopSec=%q: %v", directives["TimeoutStopSec"], err)
	}
	delay, timeout := duration(t, env, "SKYGATE_SHUTDOWN_DELAY"), duration(t, env, "SKYGATE_SHUTDOWN_TIMEOUT")
	if stop <= delay+timeout {
		t.Errorf("TimeoutStopSec %v, want more than the shutdown delay %v and timeout %v", stop, delay, timeout)
	}
	for _, want := range []string{"DynamicUser=yes", "StateDirectory=skygate", "EnvironmentFile=/etc/skygate/skygate.env",
		"ProtectSystem=strict", "NoNewPrivileges=yes", "Restart=on-failure", "KillSignal=SIGTERM",
		"ExecStartPre=/usr/local/bin/skygate migrate", "ExecStart=/usr/local/bin/skygate serve"} {
		if !strings.Contains("\n"+unit+"\n", "\n"+want+"\n") {
			t.Errorf("the unit lacks %s", want)
		}
	}

	// The unit's own Environment= lines, then the file, which overrides them.
	settings := map[string]string{}
	for _, line := range strings.Split(unit, "\n") {
		if kv, ok := strings.CutPrefix(line, "Environment="); ok {
			k, v, _ := strings.Cut(kv, "=")
			settings[k] = strings.ReplaceAll(v, "%d", "/run/credentials/skygate.service")
		}
	}
	for k, v := range env {
		settings[k] = v
	}
	for name, v := range settings {
		if !knownVariable(name) {
			t.Errorf("%s is no variable of internal/config (Variables)", name)
		}
		if v == "" {
			settings[name] = secretStandIn(t, name)
		}
	}
	cfg, err := config.Load(func(name string) string { return settings[name] })
	if err != nil {
		t.Fatalf("production refuses skygate.env: %v", err)
	}
	if !cfg.Production() || cfg.Migrate {
		t.Errorf("skygate.env: env %s, migrate %v; want production, and serve not migrating (ExecStartPre does)", cfg.Env, cfg.Migrate)
	}

	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("systemd-analyze is not installed (Debian's systemd package)")
		}
		t.Skip("systemd-analyze is not installed (Debian's systemd package)")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "skygate.service")
	local := strings.ReplaceAll(unit, "/usr/local/bin/skygate", mustBuild(t))
	if err := os.WriteFile(path, []byte(local), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	verify := exec.Command(analyze, "verify", "--man=no", path)
	verify.Stderr = &stderr
	if err := verify.Run(); err != nil || stderr.Len() > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, stderr.String())
	}
	// 20 is an exposure of 2.0 of 10, systemd's "OK".
	if out, err := exec.Command(analyze, "security", "--offline=yes", "--threshold=20", path).CombinedOutput(); err != nil {
		t.Errorf("systemd-analyze security: %v\n%s", err, out)
	}
}

// unitDirectives returns a unit file's KEY=VALUE lines (the last of a repeated key).
func unitDirectives(unit string) map[string]string {
	d := map[string]string{}
	for _, line := range strings.Split(unit, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			d[k] = v
		}
	}
	return d
}

// envFile returns systemd/skygate.env's variables.
func envFile(t *testing.T) map[string]string {
	t.Helper()
	env := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(readFile(t, "systemd/skygate.env")))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("skygate.env: %q is no KEY=VALUE line", line)
		}
		env[k] = v
	}
	return env
}
