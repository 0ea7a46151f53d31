package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startCPUProfile starts a CPU profile into path (SKYGATE_CPU_PROFILE) and returns the
// function that ends it and closes the file; with no path it does nothing. The profile
// covers the whole run, so it is written when serve stops (SIGTERM or SIGINT).
func startCPUProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("SKYGATE_CPU_PROFILE: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close() // the profiler's error is the one to report
		return nil, fmt.Errorf("SKYGATE_CPU_PROFILE: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}
