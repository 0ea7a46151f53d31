package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersion: an unstamped build (this test binary: go test records no revision)
// prints the version "dev" and the commit "unknown", with the Go release.
func TestVersion(t *testing.T) {
	t.Parallel()
	want := "skygate dev (commit unknown, " + runtime.Version() + ")\n"
	for _, arg := range []string{"version", "--version"} {
		var out strings.Builder
		if err := run(t.Context(), []string{"skygate", arg}, nil, &out, nil); err != nil || out.String() != want {
			t.Errorf("%s: %v %q, want %q", arg, err, out.String(), want)
		}
	}
}

// TestVersionStamped builds the command as the release build does, with the version
// and the commit stamped by -ldflags -X, and runs its version command.
func TestVersionStamped(t *testing.T) {
	t.Parallel()
	goTool, err := exec.LookPath("go")
	if err != nil && os.Getenv("CI") == "" {
		t.Skipf("building a stamped binary needs the go command: %v", err)
	} else if err != nil {
		t.Fatalf("building a stamped binary needs the go command: %v", err)
	}
	const stampedVersion, stampedCommit = "1.2.3-rc.1", "0123456789abcdef0123456789abcdef01234567"
	bin := filepath.Join(t.TempDir(), "skygate")
	args := []string{"build", "-o", bin, "-buildvcs=false", "-ldflags", "-X main.version=" + stampedVersion + " -X main.commit=" + stampedCommit}
	if raceEnabled() {
		args = append(args, "-race") // the packages then come compiled from this test's build
	}
	build := exec.CommandContext(t.Context(), goTool, append(args, ".")...)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	out, err := exec.CommandContext(t.Context(), bin, "version").Output()
	want := "skygate " + stampedVersion + " (commit " + stampedCommit + ", " + runtime.Version() + ")\n"
	if err != nil || string(out) != want {
		t.Fatalf("stamped version: %v %q, want %q", err, out, want)
	}
}

// TestBuildOf: a stamped commit wins; unstamped, the revision the go command
// recorded stands in; without either the commit is "unknown".
func TestBuildOf(t *testing.T) {
	t.Parallel()
	vcs := &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "feedc0de"}}}
	for _, tc := range []struct {
		version, commit string
		bi              *debug.BuildInfo
		want            build
	}{
		{"1.0.0", "abc123", vcs, build{"1.0.0", "abc123", runtime.Version()}},
		{"dev", "", vcs, build{"dev", "feedc0de", runtime.Version()}},
		{"dev", "", &debug.BuildInfo{}, build{"dev", "unknown", runtime.Version()}},
		{"dev", "", nil, build{"dev", "unknown", runtime.Version()}},
	} {
		if got := buildOf(tc.version, tc.commit, tc.bi); got != tc.want {
			t.Errorf("buildOf(%q, %q, %v) = %+v, want %+v", tc.version, tc.commit, tc.bi, got, tc.want)
		}
	}
}

// raceEnabled reports whether this test binary was built with the race detector.
func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}
