package main

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate/internal/devpki"
)

// TestSandboxRefusesDevelopmentDefaults: a sandbox configured as development would be (no
// identity provider, no TLS files, no master key) refuses to start, naming the
// variables of both ways out, and generates nothing into the data dir.
func TestSandboxRefusesDevelopmentDefaults(t *testing.T) {
	t.Parallel()
	env := testEnv(t, map[string]string{"SKYGATE_ENV": "sandbox", "SKYGATE_MASTER_KEY": ""})
	err := run(refusalContext(t), []string{"skygate", "serve"}, func(k string) string { return env[k] }, io.Discard, io.Discard)
	if err == nil {
		t.Fatal("sandbox started with development defaults")
	}
	for _, want := range []string{"SKYGATE_OIDC_ISSUER", "SKYGATE_DEV_IDP=true", "SKYGATE_TLS_CERT", "SKYGATE_DEV_PKI=true", "SKYGATE_MASTER_KEY is required in sandbox"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	if entries, _ := os.ReadDir(env["SKYGATE_DATA_DIR"]); len(entries) != 0 {
		t.Errorf("the refused start wrote %v", entries)
	}
}

// TestSandboxRoleMapWarning: a sandbox with an external identity provider and no role
// map warns at start that every employee is an admin; with a map it applies the map
// (internal/login TestEndToEndIndependentProvider) and does not warn.
func TestSandboxRoleMapWarning(t *testing.T) {
	t.Parallel()
	const warning = `"msg":"sandbox makes every employee an admin (SKYGATE_ROLE_MAP is unset)"`
	for _, roleMap := range []string{"", "grp-ops=admin"} {
		s := startServer(t, testEnv(t, map[string]string{
			"SKYGATE_ENV": "sandbox", "SKYGATE_DEV_PKI": "true", "SKYGATE_ROLE_MAP": roleMap,
			"SKYGATE_OIDC_ISSUER": "https://idp.skygate.test", "SKYGATE_OIDC_CLIENT_ID": "skygate",
		}))
		if got := strings.Contains(s.stderr.String(), warning); got != (roleMap == "") {
			t.Errorf("SKYGATE_ROLE_MAP=%q: warning logged %v, want %v:\n%s", roleMap, got, roleMap == "", s.stderr.String())
		}
	}
}

// TestDevelopmentWarnsBeyondLoopback: a development listener that the operator put on
// every interface is named in a warning.
func TestDevelopmentWarnsBeyondLoopback(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, map[string]string{"SKYGATE_OPS_ADDR": "0.0.0.0:0"}))
	log := s.stderr.String()
	if !strings.Contains(log, `"level":"WARN","msg":"development listens beyond loopback","variable":"SKYGATE_OPS_ADDR"`) {
		t.Errorf("no warning for the operator listener on 0.0.0.0:\n%s", log)
	}
	if strings.Contains(log, `"variable":"SKYGATE_HTTP_ADDR"`) || strings.Contains(log, `"variable":"SKYGATE_MTLS_ADDR"`) {
		t.Errorf("a warning for a loopback listener:\n%s", log)
	}
}

// productionEnv is a production configuration that config.Load accepts, with TLS files
// in dir.
func productionEnv(t *testing.T, dir string) map[string]string {
	return testEnv(t, map[string]string{
		"SKYGATE_ENV":            "production",
		"SKYGATE_MASTER_KEY":     "b1ad6fa6e17b5186653f1686ca68db71afc5ba9f7211d3b55ce4fc15b6d4368d",
		"SKYGATE_PUBLIC_URL":     "https://skygate.test",
		"SKYGATE_OIDC_ISSUER":    "https://idp.skygate.test",
		"SKYGATE_OIDC_CLIENT_ID": "skygate",
		"SKYGATE_ROLE_MAP":       "grp-ops=admin",
		"SKYGATE_TLS_CERT":       filepath.Join(dir, "server.pem"),
		"SKYGATE_TLS_KEY":        filepath.Join(dir, "server-key.pem"),
		"SKYGATE_CLIENT_CA":      filepath.Join(dir, "ca.pem"),
	})
}

// TestProductionRefusesDevelopmentCA: the development PKI's certificates, copied out of
// the data dir, are refused in production by their issuer.
func TestProductionRefusesDevelopmentCA(t *testing.T) {
	t.Parallel()
	pki, err := devpki.Ensure(filepath.Join(t.TempDir(), "pki"), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for from, to := range map[string]string{pki.ServerCert: "server.pem", pki.ServerKey: "server-key.pem", pki.CA: "ca.pem"} {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, to), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := productionEnv(t, dir)
	err = run(refusalContext(t), []string{"skygate", "serve"}, func(k string) string { return env[k] }, io.Discard, io.Discard)
	if err == nil {
		t.Fatal("production started with the development CA's certificates")
	}
	for _, want := range []string{"SKYGATE_TLS_CERT is issued by the development CA", "SKYGATE_CLIENT_CA holds the development CA"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}

	// devpki.CACommonName is the development CA's name indeed.
	b, _ := pem.Decode(mustRead(t, pki.CA))
	ca, err := x509.ParseCertificate(b.Bytes)
	if err != nil || ca.Subject.CommonName != devpki.CACommonName {
		t.Errorf("development CA %v: %v", ca.Subject, err)
	}
}

// TestProductionRefusesWeakSettingsAtStart: serve refuses production's weak settings
// all at once, each with its variable.
func TestProductionRefusesWeakSettingsAtStart(t *testing.T) {
	t.Parallel()
	env := productionEnv(t, t.TempDir())
	env["SKYGATE_MASTER_KEY"] = testMasterKey
	env["SKYGATE_PUBLIC_URL"] = "http://skygate.test"
	env["SKYGATE_WEBHOOK_ALLOW_PRIVATE"] = "true"
	env["SKYGATE_CLIENT_CA"] = filepath.Join(env["SKYGATE_DATA_DIR"], "pki", "ca.pem")
	err := run(refusalContext(t), []string{"skygate", "serve"}, func(k string) string { return env[k] }, io.Discard, io.Discard)
	if err == nil {
		t.Fatal("production started with weak settings")
	}
	for _, want := range []string{"SKYGATE_MASTER_KEY is too regular", "SKYGATE_PUBLIC_URL must be https", "SKYGATE_WEBHOOK_ALLOW_PRIVATE is refused",
		"SKYGATE_ADMIN_REDIRECT_URIS entry", "SKYGATE_CLIENT_CA names a file of the development PKI"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
}

// refusalContext bounds a start that must be refused: should the server start after
// all, run returns when the context ends and the test fails instead of hanging.
func refusalContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func mustRead(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
