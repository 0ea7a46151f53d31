package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// clientModule is the Go client for partners, a module of its own.
const clientModule = "../../client"

// quickstartPassCode is the last line the quickstart prints.
var quickstartPassCode = regexp.MustCompile(`(?m)^pass code: [2-9A-Z]{10}$`)

// TestClientQuickstart runs the Go client's example program (go run
// ./examples/quickstart in client/) against a real development server with the demo
// client it prints and the development PKI: it books, waits for Issued, confirms and
// prints the pass code, and exits 0.
func TestClientQuickstart(t *testing.T) {
	t.Parallel()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("the quickstart runs with go run: %v", err)
	}
	s := startServer(t, testEnv(t, nil))
	demo := demoClient(t, s.stdout.String())

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goCmd, "run", "./examples/quickstart")
	cmd.Dir = clientModule
	cmd.Env = append(os.Environ(),
		"SKYGATE_URL="+s.base, "SKYGATE_MTLS_URL="+s.mtlsBase,
		"SKYGATE_CLIENT_ID="+demo.ClientID, "SKYGATE_CLIENT_SECRET="+demo.ClientSecret,
		"SKYGATE_PKI_DIR="+filepath.Join(s.env["SKYGATE_DATA_DIR"], "pki"),
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run ./examples/quickstart: %v\n%s", err, out)
	}
	if !quickstartPassCode.Match(out) {
		t.Fatalf("the quickstart printed no pass code:\n%s", out)
	}
	t.Logf("%s", out)
}
