package main

import (
	"runtime/debug"
	"strconv"
)

// defaultGCPercent is serve's garbage-collection target (GOGC) when the operator sets
// none: the live heap is small, so collecting less often than Go's default costs little
// memory (docs/decisions/0300-serve-gogc-400.md).
const defaultGCPercent = 400

// gcPercent is the GOGC serve runs with: the operator's GOGC when set (the runtime
// applied it at start: "off" or a number), else defaultGCPercent, with fromEnv false.
func gcPercent(getenv func(string) string) (gogc string, fromEnv bool) {
	if v := getenv("GOGC"); v != "" {
		return v, true
	}
	return strconv.Itoa(defaultGCPercent), false
}

// tuneGC applies defaultGCPercent unless GOGC is set, and returns the GOGC in effect
// for the log.
func tuneGC(getenv func(string) string) string {
	gogc, fromEnv := gcPercent(getenv)
	if !fromEnv {
		debug.SetGCPercent(defaultGCPercent)
	}
	return gogc
}
