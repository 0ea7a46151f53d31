package main

// Ory Hydra is the reference of the token endpoint's "≥ 10× Hydra" target: its
// client_credentials grant measured on the same machine in the same run, pinned and
// driven exactly like skygate's token scenario. Hydra is not a Go dependency of this
// module; the harness runs a binary it is given (-hydra-bin), on a database of its own
// on the PostgreSQL server of the run's DSN.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// hydraClientID is the OAuth client the harness registers in Hydra.
const hydraClientID = "bench-client"

// runHydra migrates a fresh database, starts `hydra serve all` on it pinned like the
// server, registers a client_credentials client and measures the token endpoint. It
// adds a skipped row, with the reason, when it has no binary or no PostgreSQL.
func (h *harness) runHydra(ctx context.Context, rep *report) error {
	skip := func(reason string) error {
		rep.add(row{Scenario: scHydraToken, Engine: enginePostgres, Skipped: reason})
		return nil
	}
	dsn := h.opts.pgDSN
	switch {
	case h.opts.hydraBin == "":
		return skip("no Ory Hydra: set -hydra-bin or SKYGATE_BENCH_HYDRA_BIN")
	case dsn == "":
		return skip("no PostgreSQL: set SKYGATE_BENCH_DATABASE_URL or SKYGATE_TEST_DATABASE_URL")
	case !strings.HasPrefix(dsn, "postgres://") && !strings.HasPrefix(dsn, "postgresql://"):
		return skip("Hydra's DSN must be a postgres:// URL; the PostgreSQL DSN is not one")
	}
	hydraDSN, drop, err := freshDatabase(ctx, dsn, "skygate_bench_hydra_")
	if err != nil {
		return err
	}
	// Deferred first, so it runs after Hydra has stopped.
	defer func() {
		if err := drop(); err != nil {
			h.logf("%s: drop its database: %v", scHydraToken, err)
		}
	}()
	env := append(childEnv(), "DSN="+hydraDSN)
	var out bytes.Buffer
	migrate := exec.CommandContext(ctx, h.opts.hydraBin, "migrate", "sql", "up", "-e", "--yes")
	migrate.Env, migrate.Stdout, migrate.Stderr = env, &out, &out
	if err := migrate.Run(); err != nil {
		return fmt.Errorf("hydra migrate: %w: %s", err, out.Bytes())
	}

	// Hydra logs no listening line: choose the ports and wait for /health/ready.
	public, err1 := freeAddr()
	admin, err2 := freeAddr()
	if err1 != nil || err2 != nil {
		return fmt.Errorf("free ports: %w", errors.Join(err1, err2))
	}
	publicHost, publicPort, _ := net.SplitHostPort(public)
	adminHost, adminPort, _ := net.SplitHostPort(admin)
	env = append(env,
		"SECRETS_SYSTEM="+randomHex(24),
		"URLS_SELF_ISSUER=http://"+public,
		"SERVE_PUBLIC_HOST="+publicHost, "SERVE_PUBLIC_PORT="+publicPort,
		"SERVE_ADMIN_HOST="+adminHost, "SERVE_ADMIN_PORT="+adminPort,
		// Without Hydra's access log, where skygate writes one line per request: the
		// comparison errs in Hydra's favour.
		"LOG_LEVEL=warn",
	)
	logPath := filepath.Join(h.runDir, "hydra.log")
	// --dev allows the plain-HTTP issuer (skygate is measured without TLS too);
	// --sqa-opt-out keeps Hydra's telemetry calls out of the run.
	p, err := h.startProc(ctx, scHydraToken, []string{h.opts.hydraBin, "serve", "all", "--dev", "--sqa-opt-out"}, env, logPath, false)
	if err != nil {
		return err
	}
	defer p.stop()
	p.http = "http://" + public
	if err := waitReady(ctx, "http://"+admin+"/health/ready"); err != nil {
		return fmt.Errorf("%w:\n%s", err, tail(logPath))
	}
	cli := &http.Client{Timeout: 10 * time.Second}
	c := credentials{ClientID: hydraClientID, ClientSecret: randomHex(24)}
	if err := createHydraClient(ctx, cli, "http://"+admin, c); err != nil {
		return err
	}
	t := clientCredentialsTarget(p.http+"/oauth2/token", c, "grant_type=client_credentials&scope=read")
	if _, err := fetchToken(ctx, cli, t); err != nil {
		return fmt.Errorf("hydra %w", err)
	}
	m, err := h.measure(ctx, scHydraToken, p, staticLoad(t, http.StatusOK, nil))
	if err != nil {
		return err
	}
	r := httpRow(scHydraToken, enginePostgres, m)
	r.Note = joinNote(r.Note, fmt.Sprintf("Ory Hydra %s in its default configuration (opaque tokens, PBKDF2-hashed client secrets); "+
		"PostgreSQL's CPU is not in the server figures (as for skygate on postgres)", hydraVersion(ctx, h.opts.hydraBin)))
	rep.add(r)
	return nil
}

// createHydraClient registers c as a client_credentials client with scope read
// through Hydra's admin API.
func createHydraClient(ctx context.Context, cli *http.Client, adminURL string, c credentials) error {
	body, _ := json.Marshal(map[string]any{
		"client_id": c.ClientID, "client_name": "bench", "client_secret": c.ClientSecret,
		"grant_types": []string{"client_credentials"}, "response_types": []string{"token"},
		"token_endpoint_auth_method": "client_secret_basic", "scope": "read",
	})
	resp, rb, err := do(ctx, cli, vegeta.Target{Method: http.MethodPost, URL: adminURL + "/admin/clients", Body: body,
		Header: http.Header{"Content-Type": {"application/json"}}})
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusCreated {
		return fmt.Errorf("hydra create client: %d %.300s", resp.StatusCode, rb)
	}
	return nil
}

// hydraVersion is the version `hydra version` prints, or "(version unknown)".
func hydraVersion(ctx context.Context, bin string) string {
	out, _ := exec.CommandContext(ctx, bin, "version").Output()
	for line := range strings.Lines(string(out)) {
		if v, ok := strings.CutPrefix(line, "Version:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "(version unknown)"
}

// randomHex is n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
