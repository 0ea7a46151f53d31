package main

// wrk drives the closed-loop phases of the scenarios whose load is one fixed plain-HTTP
// request. vegeta, a Go net/http client, spends more CPU per request than the bare
// baseline server does to answer it, so for the cheap scenarios the load generator,
// not the server, set the maximum: wrk (C, one thread, epoll) drives the same servers
// about twice as fast from the same core. It cannot vary a request without a Lua
// request() callback per request (which costs what we are trying to save), so the
// scenarios with a fresh Idempotency-Key per request (booking, esim-order, the
// webhooks' bookings) stay on vegeta, as does every open-loop latency phase: wrk has
// no fixed-rate mode.

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Load generators (-generator).
const (
	genAuto   = "auto"
	genWrk    = "wrk"
	genVegeta = "vegeta"
)

// usesWrk reports whether the closed-loop phases of l run on wrk.
func (h *harness) usesWrk(l httpLoad) bool {
	return h.opts.wrkPath != "" && l.static != nil && l.tls == nil
}

// wrkVersion is the first line of `wrk -v` (which exits 1), for the report.
func wrkVersion(path string) string {
	out, _ := exec.Command(path, "-v").CombinedOutput()
	line, _, _ := strings.Cut(string(out), "\n")
	line, _, _ = strings.Cut(line, " Copyright")
	return strings.TrimSpace(line)
}

// wrkTimeout matches vegeta's request timeout. wrk counts a response slower than this
// as a timeout error.
const wrkTimeout = 10 * time.Second

// attackWrk runs a closed loop of workers connections against p for d (rounded up to
// whole seconds: wrk takes no less) sending t, and measures it as attack does: server
// CPU from /proc over the phase, client CPU from wrk's own rusage.
//
// wrk counts only statuses ≥ 400 as errors, so a 200 where a 304 is expected passes
// as success; measure has checked the status of one request before (probe).
func (h *harness) attackWrk(ctx context.Context, p *proc, t vegeta.Target, want, workers int, d time.Duration) (phase, error) {
	ph := phase{Workers: workers, Generator: genWrk, Statuses: map[string]int{}}
	script, err := os.CreateTemp(h.dir, "wrk-*.lua")
	if err != nil {
		return ph, err
	}
	defer func() { _ = os.Remove(script.Name()) }() // a temporary file
	_, err = io.WriteString(script, wrkScript(t))
	if err = errors.Join(err, script.Close()); err != nil {
		return ph, err
	}
	secs := int64((d + time.Second - 1) / time.Second)
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, h.opts.wrkPath, "-t1", "-c"+strconv.Itoa(workers), "-d"+strconv.FormatInt(secs, 10)+"s",
		"--timeout", strconv.Itoa(int(wrkTimeout/time.Second))+"s", "-s", script.Name(), t.URL)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr

	cpu0, err := procCPU(p.pid())
	if err != nil {
		return ph, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return ph, fmt.Errorf("wrk: %w", err)
	}
	// wrk inherits this process's CPU mask (every thread of it was pinned); make sure,
	// or the generator would share the server's core.
	if h.pinned {
		if got, want := procAllowedCPUs(cmd.Process.Pid), allowedCPUs(); got != "" && got != want {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			return ph, fmt.Errorf("wrk runs on CPUs %s, not on the load generator's %s", got, want)
		}
	}
	runErr := cmd.Wait()
	wall := time.Since(start)
	cpu1, err := phaseEndCPU(ctx, p)
	if err != nil {
		return ph, err
	}
	if runErr != nil {
		return ph, fmt.Errorf("wrk: %w: %s%s", runErr, stderr.Bytes(), stdout.Bytes())
	}
	res, err := parseWrkDone(stdout.Bytes())
	if err != nil {
		return ph, fmt.Errorf("wrk: %w: %s%s", err, stderr.Bytes(), stdout.Bytes())
	}
	res.fill(&ph, want)
	// Throughput over wrk's own clock (its counts are over it); utilizations over the
	// wall time the CPU figures were taken across, which adds wrk's start and exit.
	ph.ServerCPU = (cpu1 - cpu0).Seconds()
	ph.ServerUtil = ph.ServerCPU / wall.Seconds()
	ph.ClientUtil = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds() / wall.Seconds()
	if ph.OK > 0 {
		ph.CPUPerReq = ph.ServerCPU / float64(ph.OK) * 1e6
	}
	return ph, nil
}

// wrkScript is the Lua script that makes wrk send t and print a wrkResult as one JSON
// line when it is done. It defines no response() callback: with one, wrk parses every
// response in Lua and gets several times slower.
func wrkScript(t vegeta.Target) string {
	var b strings.Builder
	fmt.Fprintf(&b, "wrk.method = %s\n", luaString(t.Method))
	if len(t.Body) > 0 {
		fmt.Fprintf(&b, "wrk.body = %s\n", luaString(string(t.Body)))
	}
	for _, k := range slices.Sorted(maps.Keys(t.Header)) {
		// The spaces keep "[" and the key's "[[" from reading as one long bracket "[[[".
		fmt.Fprintf(&b, "wrk.headers[ %s ] = %s\n", luaString(k), luaString(strings.Join(t.Header[k], ", ")))
	}
	// %.0f: LuaJIT's %d is 32-bit on some builds, and bytes can exceed it.
	b.WriteString(`
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('{"requests":%.0f,"duration_us":%.0f,"bytes":%.0f,' ..
    '"errors":{"connect":%.0f,"read":%.0f,"write":%.0f,"status":%.0f,"timeout":%.0f},' ..
    '"latency_us":{"p50":%.0f,"p90":%.0f,"p99":%.0f,"max":%.0f}}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
`)
	return b.String()
}

// luaString quotes s for Lua: a long bracket [==[…]==] of a level whose closing
// bracket s does not contain, so nothing needs escaping. A long bracket turns any line
// break into \n, so a value with \r (or NUL) is written as a quoted string with decimal
// escapes instead.
func luaString(s string) string {
	if strings.ContainsAny(s, "\r\x00") {
		var b strings.Builder
		b.WriteByte('"')
		for i := 0; i < len(s); i++ {
			fmt.Fprintf(&b, `\%03d`, s[i])
		}
		b.WriteByte('"')
		return b.String()
	}
	level := ""
	for strings.Contains(s, "]"+level+"]") {
		level += "="
	}
	// Lua drops a line break right after the opening bracket: write one, so a value
	// that starts with one keeps it.
	return "[" + level + "[\n" + s + "]" + level + "]"
}

// wrkResult is the line the script's done() prints.
type wrkResult struct {
	Requests   int64   `json:"requests"`
	DurationUS float64 `json:"duration_us"`
	Bytes      int64   `json:"bytes"`
	Errors     struct {
		Connect int64 `json:"connect"`
		Read    int64 `json:"read"`
		Write   int64 `json:"write"`
		Status  int64 `json:"status"`
		Timeout int64 `json:"timeout"`
	} `json:"errors"`
	LatencyUS struct {
		P50 float64 `json:"p50"`
		P90 float64 `json:"p90"`
		P99 float64 `json:"p99"`
		Max float64 `json:"max"`
	} `json:"latency_us"`
}

// parseWrkDone finds the done() line in wrk's output (after wrk's own text).
func parseWrkDone(out []byte) (wrkResult, error) {
	var res wrkResult
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		line := bytes.TrimSpace(lines[i])
		if len(line) > 0 && line[0] == '{' {
			if err := json.Unmarshal(line, &res); err != nil {
				return res, fmt.Errorf("done() line %q: %w", line, err)
			}
			if res.DurationUS <= 0 {
				return res, fmt.Errorf("done() line %q has no duration", line)
			}
			return res, nil
		}
	}
	return res, errors.New("no done() line in the output")
}

// fill sets the request counts, throughput and latencies of ph. wrk counts only
// responses in requests; a socket error (connect, read, write, timeout) may or may
// not have cost a response, so successes are requests minus every error: never more
// than the truth.
func (r wrkResult) fill(ph *phase, want int) {
	e := r.Errors
	socket := e.Connect + e.Read + e.Write + e.Timeout
	ph.Requests = r.Requests
	ph.OK = max(0, r.Requests-e.Status-socket)
	ph.Seconds = r.DurationUS / 1e6
	ph.RPS = float64(ph.OK) / ph.Seconds
	if ph.OK > 0 {
		ph.Statuses[strconv.Itoa(want)] = int(ph.OK)
	}
	if e.Status > 0 {
		ph.Statuses["≥400"] = int(e.Status)
	}
	for _, se := range []struct {
		name string
		n    int64
	}{{"connect", e.Connect}, {"read", e.Read}, {"write", e.Write}, {"timeout", e.Timeout}} {
		if se.n > 0 {
			ph.Errors = append(ph.Errors, fmt.Sprintf("%d× %s error", se.n, se.name))
		}
	}
	ph.P50, ph.P90, ph.P99, ph.Max = r.LatencyUS.P50/1e3, r.LatencyUS.P90/1e3, r.LatencyUS.P99/1e3, r.LatencyUS.Max/1e3
}

// probe sends t once and fails unless the answer has status want. wrk cannot tell a
// wrong 2xx or 3xx from the right one, so every static load is checked before its
// phases.
func probe(ctx context.Context, t vegeta.Target, want int, tc *tls.Config) error {
	tr := &http.Transport{TLSClientConfig: tc}
	defer tr.CloseIdleConnections()
	resp, body, err := do(ctx, &http.Client{Timeout: wrkTimeout, Transport: tr}, t)
	if err != nil {
		return err
	}
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: status %d, want %d: %.300s", t.Method, t.URL, resp.StatusCode, want, body)
	}
	return nil
}
