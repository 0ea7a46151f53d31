package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate/internal/config"
)

// cliEnv is a configuration whose every use would leave a trace: a data dir that does
// not exist yet and listeners on fixed loopback ports.
func cliEnv(t *testing.T, overrides map[string]string) (getenv func(string) string, dataDir string) {
	t.Helper()
	dataDir = filepath.Join(t.TempDir(), "data")
	env := map[string]string{"SKYGATE_DATA_DIR": dataDir, "SKYGATE_HTTP_ADDR": "127.0.0.1:0", "SKYGATE_PUBLIC_URL": "http://skygate.test",
		"SKYGATE_MTLS_ADDR": "127.0.0.1:0", "SKYGATE_OPS_ADDR": "127.0.0.1:0"}
	for k, v := range overrides {
		env[k] = v
	}
	return func(k string) string { return env[k] }, dataDir
}

// mustNotExist fails the test when path exists: the command created something.
func mustNotExist(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); err == nil {
		t.Errorf("%s exists: the command created something", path)
	}
}

func TestHelpPrintsEveryFlagAndVariableAndTouchesNothing(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args  []string
		wants []string
	}{
		{[]string{"--help"}, []string{"usage: skygate COMMAND", "serve", "migrate", "bootstrap", "catalog import FILE", "keys rotate", "version"}},
		{[]string{"-h"}, []string{"usage: skygate COMMAND"}},
		{[]string{"help"}, []string{"usage: skygate COMMAND"}},
		{[]string{"help", "bootstrap"}, []string{"usage: skygate bootstrap [flags]", "-account", "-scopes", "catalog.fasttrack:read booking.fasttrack:write", "-sandbox", "-client-cert-sha256", "-rotate-secret", "-revoke-tokens"}},
		{[]string{"bootstrap", "--help"}, []string{"usage: skygate bootstrap [flags]", "-revoke-tokens"}},
		{[]string{"serve", "-h"}, []string{"usage: skygate serve\n"}},
		{[]string{"migrate", "--help"}, []string{"usage: skygate migrate\n"}},
		{[]string{"catalog", "import", "-h"}, []string{"usage: skygate catalog import FILE"}},
		{[]string{"keys", "rotate", "--help"}, []string{"usage: skygate keys rotate\n"}},
		{[]string{"help", "keys", "rotate"}, []string{"usage: skygate keys rotate\n"}},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			// An unreachable database and a broken configuration: help must not read either.
			getenv, dataDir := cliEnv(t, map[string]string{"SKYGATE_DATABASE_URL": "postgres://127.0.0.1:1/none", "SKYGATE_LOG_LEVEL": "verbose"})
			var stdout, stderr strings.Builder
			if err := run(t.Context(), append([]string{"skygate"}, tt.args...), getenv, &stdout, &stderr); err != nil {
				t.Fatalf("error %v, want none\n%s", err, stderr.String())
			}
			for _, want := range tt.wants {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("usage lacks %q:\n%s", want, stdout.String())
				}
			}
			for _, v := range config.Variables {
				if !strings.Contains(stdout.String(), v.Name) {
					t.Errorf("usage lacks the variable %s", v.Name)
				}
			}
			mustNotExist(t, dataDir)
		})
	}
}

func TestCommandLineMistakesAreErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "a command is required"},
		{[]string{"frob"}, `unknown command "frob"`},
		{[]string{"help", "frob"}, `unknown command "frob"`},
		{[]string{"serve", "extra"}, `serve takes no arguments, got ["extra"]`},
		{[]string{"serve", "--port", "1"}, "flag provided but not defined: -port"},
		{[]string{"migrate", "now"}, "migrate takes no arguments"},
		{[]string{"keys"}, `unknown command "keys"`},
		{[]string{"keys", "rotate", "twice"}, "keys rotate takes no arguments"},
		{[]string{"catalog", "import"}, "catalog import takes FILE"},
		{[]string{"catalog", "import", "a.json", "b.json"}, "catalog import takes FILE"},
		{[]string{"bootstrap", "--acount", "x"}, "flag provided but not defined: -acount"},
		{[]string{"version", "--json"}, "version takes no arguments"},
		{[]string{"help", "serve", "extra"}, `unknown command "serve extra"`},
		{[]string{"bootstrap", "--scopes", "catalog.lounges:read"}, "--account"},
		{[]string{"bootstrap", "--account", "a", "--scopes", "catalog:lounges:read"}, "unknown B2B scope"},
		{[]string{"catalog", "import", "/nonexistent/catalog.json"}, "no such file"},
		{[]string{"catalog", "import", "cli_test.go"}, "catalog import cli_test.go"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			getenv, dataDir := cliEnv(t, nil)
			var stdout, stderr strings.Builder
			err := run(t.Context(), append([]string{"skygate"}, tt.args...), getenv, &stdout, &stderr)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one saying %q", err, tt.want)
			}
			mustNotExist(t, dataDir)
		})
	}
}

// TestConfigurationProblemsComeFirst checks that a command reports a bad setting, an
// address it cannot bind and a database it cannot reach before it creates anything
// (the data dir, the master key, the development PKI) or migrates.
func TestConfigurationProblemsComeFirst(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { taken.Close() }) // the parallel subtests run after this function returns
	for _, tt := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"log level", []string{"serve"}, map[string]string{"SKYGATE_LOG_LEVEL": "verbose"}, "SKYGATE_LOG_LEVEL must be debug, info, warn or error"},
		{"listen address", []string{"serve"}, map[string]string{"SKYGATE_OPS_ADDR": "127.0.0.1"}, "SKYGATE_OPS_ADDR must be HOST:PORT"},
		{"port taken", []string{"serve"}, map[string]string{"SKYGATE_MTLS_ADDR": taken.Addr().String()}, "SKYGATE_MTLS_ADDR: listen tcp"},
		{"database unreachable", []string{"serve"}, map[string]string{"SKYGATE_DATABASE_URL": "postgres://postgres@127.0.0.1:1/test?sslmode=disable"}, "SKYGATE_DATABASE_URL: cannot reach the database"},
		{"database unreachable on migrate", []string{"migrate"}, map[string]string{"SKYGATE_DATABASE_URL": "postgres://postgres@127.0.0.1:1/test?sslmode=disable"}, "SKYGATE_DATABASE_URL: cannot reach the database"},
		{"database unreachable on bootstrap", []string{"bootstrap", "--account", "a", "--scopes", "catalog.lounges:read"}, map[string]string{"SKYGATE_DATABASE_URL": "postgres://postgres@127.0.0.1:1/test?sslmode=disable"}, "SKYGATE_DATABASE_URL: cannot reach the database"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			getenv, dataDir := cliEnv(t, tt.env)
			var stdout, stderr strings.Builder
			// A command that wrongly starts serving stops with the test's deadline.
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			err := run(ctx, append([]string{"skygate"}, tt.args...), getenv, &stdout, &stderr)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one saying %q\n%s", err, tt.want, stderr.String())
			}
			mustNotExist(t, dataDir)
		})
	}
	t.Run("SQLite under a file", func(t *testing.T) {
		t.Parallel()
		file := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(file, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		getenv, _ := cliEnv(t, map[string]string{"SKYGATE_DATABASE_URL": "sqlite://" + filepath.Join(file, "skygate.db")})
		err := run(t.Context(), []string{"skygate", "migrate"}, getenv, &strings.Builder{}, &strings.Builder{})
		if err == nil || !strings.Contains(err.Error(), "is not a directory") {
			t.Fatalf("error %v, want one saying the path is not a directory", err)
		}
	})
}

// TestEveryStartPrintsTheDevelopmentPKI checks that a partner finds the client
// certificate's files in the log of every start, not only the first.
func TestEveryStartPrintsTheDevelopmentPKI(t *testing.T) {
	t.Parallel()
	env := testEnv(t, nil)
	for i := range 2 {
		s := startServer(t, env)
		log := s.stderr.String()
		s.stop()
		for _, want := range []string{"development PKI", `"client_cert":"` + filepath.Join(env["SKYGATE_DATA_DIR"], "pki"), `"client_key":`, `"ca":`} {
			if !strings.Contains(log, want) {
				t.Errorf("start %d logged no %q:\n%s", i+1, want, log)
			}
		}
	}
}

// TestPublicURLFollowsThePort checks that, unset, SKYGATE_PUBLIC_URL follows
// SKYGATE_HTTP_ADDR (discovery names the listener), and that a loopback public URL at
// another port is a startup warning.
func TestPublicURLFollowsThePort(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	env := testEnv(t, map[string]string{"SKYGATE_HTTP_ADDR": addr, "SKYGATE_PUBLIC_URL": ""})
	s := startServer(t, env)
	_, body := s.get("/.well-known/openid-configuration", "", nil)
	if !strings.Contains(string(body), `"issuer":"http://`+addr+`"`) {
		t.Errorf("discovery with SKYGATE_PUBLIC_URL unset names another issuer than http://%s:\n%s", addr, body)
	}
	if strings.Contains(s.stderr.String(), "at another port") {
		t.Errorf("warned of a mismatch that is not there:\n%s", s.stderr.String())
	}
	s.stop()

	env = testEnv(t, map[string]string{"SKYGATE_PUBLIC_URL": "http://127.0.0.1:1"})
	s = startServer(t, env)
	if !strings.Contains(s.stderr.String(), "SKYGATE_PUBLIC_URL names this machine at another port than SKYGATE_HTTP_ADDR") {
		t.Errorf("no warning of a loopback public URL at another port:\n%s", s.stderr.String())
	}
}
