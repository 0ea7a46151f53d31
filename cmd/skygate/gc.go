package main

import (
	"runtime/debug"
	"strconv"
)

// defaultGCPercent is serve's garbage-collection target (GOGC) when the operator sets
// none. The service's live heap is small (4–6 MB: caches, compiled schemas, connection
// buffers), so Go's default of 100 collects every ~60 ms under load and marking costs
// about a tenth of a catalog request's instructions; at 400 the heap may grow to five
// times the live data (~25 MB) and collections are a quarter as frequent. See
// docs/performance.md, "From 20:00".
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
