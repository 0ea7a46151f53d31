package deploy

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/skygate/skygate/internal/config"
)

// knownVariable reports whether the service reads name: one of internal/config's
// Variables, or an OpenTelemetry SDK variable (OTEL_*), which the SDK reads itself.
func knownVariable(name string) bool {
	if strings.HasPrefix(name, "OTEL_") {
		return true
	}
	for _, v := range config.Variables {
		if v.Name == name {
			return true
		}
	}
	return false
}

// variableDefault returns the default internal/config documents for name, failing
// the test when no variable has that name.
func variableDefault(t *testing.T, name string) string {
	t.Helper()
	for _, v := range config.Variables {
		if v.Name == name {
			return v.Default
		}
	}
	t.Fatalf("%s is no variable of internal/config (Variables)", name)
	return ""
}

// portOf returns the port of a HOST:PORT address, or -1.
func portOf(addr string) int {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		return -1
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		return -1
	}
	return n
}

// Build stamps of the test binary.
const (
	testVersion = "v0.0.0-deploy-test"
	testCommit  = "0123456789abcdef0123456789abcdef01234567"
)

var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// mustBuild returns the path of skygate as scripts/build makes it (the Dockerfile's
// build), stamped with testVersion and testCommit; the tests of the package share one
// build.
func mustBuild(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "skygate-deploy-")
		if built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "skygate")
		cmd := exec.Command(filepath.Join("..", "scripts", "build"), built.bin)
		cmd.Env = append(os.Environ(), "VERSION="+testVersion, "COMMIT="+testCommit)
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = &buildError{err: err, out: string(out)}
		}
	})
	if built.err != nil {
		t.Fatalf("scripts/build: %v", built.err)
	}
	return built.bin
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// readFile returns the contents of a file of the repository, relative to this
// directory.
func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
