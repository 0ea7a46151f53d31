package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestMain lets the test binary stand in for skygate-bench when the harness starts
// its reference subprocesses (os.Executable is the test binary here).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "baseline-server", "insert-loop", "sign-loop":
			if err := run(context.Background(), os.Args, os.Getenv, os.Stdout, os.Stderr); err != nil {
				os.Stderr.WriteString(err.Error() + "\n")
				os.Exit(1)
			}
			os.Exit(0)
		}
	}
	os.Exit(m.Run())
}

// TestHarnessSmoke runs the baseline, the reference loops and the catalog scenario
// with tiny loads and checks only that figures come out: timing belongs in the
// harness's output, never in a test's verdict.
func TestHarnessSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the server")
	}
	out := filepath.Join(t.TempDir(), "bench.json")
	var stdout, stderr bytes.Buffer
	args := []string{"skygate-bench", "-duration", "500ms", "-latency-duration", "250ms", "-warmup", "0", "-workers", "4",
		"-scenarios", "baseline,es256-loop,insert-loop,catalog-200,catalog-304", "-engines", "sqlite", "-pin=false",
		"-work-dir", t.TempDir(), "-json", out}
	if err := run(t.Context(), args, func(string) string { return "" }, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string]row{}
	for _, r := range rep.Rows {
		got[r.Scenario] = r
	}
	for _, name := range []string{scBaseline, scSignLoop, scInsertLoop, scCatalog200, scCatalog304} {
		r, ok := got[name]
		if !ok || r.Skipped != "" || r.RPS <= 0 {
			t.Errorf("%s: no figures: %+v", name, r)
		}
	}
	if r := got[scCatalog200]; r.Phases == nil || r.Phases.Max.OK == 0 || r.VsBaseline <= 0 || len(r.Checks) == 0 {
		t.Errorf("catalog-200 lacks phases, ratio or checks: %+v", r)
	}
	if !bytes.Contains(stdout.Bytes(), []byte("catalog-304")) {
		t.Errorf("the table does not list catalog-304:\n%s", stdout.String())
	}
}

func TestOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args    []string
		wantErr bool
	}{
		{[]string{}, false},
		{[]string{"-scenarios", "token,catalog-200", "-engines", "sqlite"}, false},
		{[]string{"-scenarios", "nope"}, true},
		{[]string{"-engines", "mysql"}, true},
		{[]string{"-load", "1.5"}, true},
		{[]string{"-workers", "0"}, true},
		{[]string{"-nice", "-30"}, true},
	}
	for _, tt := range tests {
		f := newFlags(&bytes.Buffer{})
		if err := f.fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		_, err := f.options(func(string) string { return "" })
		if (err != nil) != tt.wantErr {
			t.Errorf("%v: err = %v, want error %v", tt.args, err, tt.wantErr)
		}
	}
}

func TestCountCPUs(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int{"1": 1, "0-1": 2, "1,3": 2, "0-3,8": 5} {
		if got, err := countCPUs(in); err != nil || got != want {
			t.Errorf("countCPUs(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	if _, err := countCPUs("x"); err == nil {
		t.Error("countCPUs(x) did not fail")
	}
}

func TestProcCPU(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	if _, err := procCPU(os.Getpid()); err != nil {
		t.Fatal(err)
	}
}
