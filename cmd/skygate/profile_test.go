package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestStartCPUProfile: with a path, a gzipped pprof profile is there once stopped;
// without one, nothing is written and stopping is a no-op.
func TestStartCPUProfile(t *testing.T) {
	stop, err := startCPUProfile("")
	if err != nil || stop() != nil {
		t.Fatalf("no path: %v", err)
	}
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	stop, err = startCPUProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		t.Fatalf("profile %q: %v, starts % x", path, err, b[:min(len(b), 4)])
	}
	if _, err := startCPUProfile(filepath.Join(t.TempDir(), "missing", "cpu.pprof")); err == nil {
		t.Error("a path in a missing directory was accepted")
	}
}
