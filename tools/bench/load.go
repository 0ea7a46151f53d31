package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"maps"
	"math"
	"net"
	"net/http"
	"slices"
	"strconv"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// httpLoad is one HTTP workload: what to send and what a success looks like.
type httpLoad struct {
	// targeter returns a fresh target source for each phase.
	targeter func() vegeta.Targeter
	// static is the one request of a load that sends the same request every time, nil
	// when requests differ; only such a load can run on wrk.
	static *vegeta.Target
	tls    *tls.Config
	want   int
	// client carries vegeta's requests in every phase of one measure: its connections
	// stay open from one phase to the next, as a partner's pooled client keeps them.
	// Without it each phase began with a burst of new connections, and for mTLS an
	// open loop that found the server busy added connections, each a full handshake,
	// until the handshakes were the load.
	client *http.Client
}

// staticLoad sends the same request every time.
func staticLoad(t vegeta.Target, want int, tc *tls.Config) httpLoad {
	return httpLoad{targeter: func() vegeta.Targeter { return vegeta.NewStaticTargeter(t) }, static: &t, want: want, tls: tc}
}

// phase is the outcome of one attack.
type phase struct {
	// Generator is the load generator that ran the phase: "wrk", "fixed-rate" or
	// "vegeta".
	Generator  string         `json:"generator"`
	Rate       int            `json:"rate,omitempty"` // requests per second asked; 0 for the closed loop
	Workers    int            `json:"workers,omitempty"`
	Requests   int64          `json:"requests"`
	OK         int64          `json:"ok"`
	Seconds    float64        `json:"seconds"`
	RPS        float64        `json:"rps"` // successful requests per second
	ServerCPU  float64        `json:"server_cpu_seconds"`
	CPUPerReq  float64        `json:"server_cpu_us_per_request"`
	ServerUtil float64        `json:"server_cpu_utilization"` // of one core
	ClientUtil float64        `json:"client_cpu_utilization"`
	P50        float64        `json:"p50_ms"`
	P90        float64        `json:"p90_ms"`
	P99        float64        `json:"p99_ms"`
	Max        float64        `json:"max_ms"`
	Statuses   map[string]int `json:"statuses"`
	Errors     []string       `json:"errors,omitempty"`
	// Slow says how the requests slower than slowLatency spread over an open loop's
	// seconds (fixed-rate generator only).
	Slow *slowFigures `json:"slow,omitempty"`
	// DeferredSeconds is the busy time after the closed loop ended: work the requests left
	// for later (bookings to issue, events to deliver). RPS, CPU per request and
	// utilization of the max phase include it, so a server cannot look fast by
	// putting work off.
	DeferredSeconds float64 `json:"deferred_seconds,omitempty"`
}

// slowLatency is the latency target's bound (p99 under it at 70 % load, report.go's
// check): slowFigures count the requests above it.
const slowLatency = 10 * time.Millisecond

// slowFigures tell a p99 made by an episode (a stall: most slow requests fell due
// within a second or two) from a steady tail (a few in every second).
type slowFigures struct {
	Requests int `json:"requests"` // slower than slowLatency
	Seconds  int `json:"seconds"`  // whole seconds of the phase with at least one
	// Worst is the most in one second, WorstAt that second's start from the phase's
	// measured start.
	Worst   int `json:"worst"`
	WorstAt int `json:"worst_at_s"`
}

// slowSpread counts the slow requests by the second they fell due in; nil for none.
func slowSpread(dueAt []time.Duration) *slowFigures {
	if len(dueAt) == 0 {
		return nil
	}
	perSecond := map[int]int{}
	for _, d := range dueAt {
		perSecond[int(d/time.Second)]++
	}
	f := &slowFigures{Requests: len(dueAt), Seconds: len(perSecond)}
	for _, sec := range slices.Sorted(maps.Keys(perSecond)) {
		if n := perSecond[sec]; n > f.Worst {
			f.Worst, f.WorstAt = n, sec
		}
	}
	return f
}

// String is the figures for the log: "312 over 10 ms in 3 s, 280 in second 2".
func (f *slowFigures) String() string {
	if f == nil {
		return fmt.Sprintf("none over %g ms", ms(slowLatency))
	}
	return fmt.Sprintf("%d over %g ms in %d s, %d in second %d", f.Requests, ms(slowLatency), f.Seconds, f.Worst, f.WorstAt)
}

// errorRate is the share of requests that did not get the expected status.
func (p phase) errorRate() float64 {
	if p.Requests == 0 {
		return 1
	}
	return 1 - float64(p.OK)/float64(p.Requests)
}

// rates sets the figures that follow from OK, Seconds and ServerCPU: RPS, CPUPerReq
// and ServerUtil (zero where their divisor is).
func (ph *phase) rates() {
	ph.RPS, ph.ServerUtil, ph.CPUPerReq = 0, 0, 0
	if ph.Seconds > 0 {
		ph.RPS = float64(ph.OK) / ph.Seconds
		ph.ServerUtil = ph.ServerCPU / ph.Seconds
	}
	if ph.OK > 0 {
		ph.CPUPerReq = ph.ServerCPU / float64(ph.OK) * 1e6
	}
}

// finish sets the phase's figures from its wall time, the server's and this process's
// CPU time over it, the latencies of the expected answers (one per OK request) and
// the errors: OK, rates, utilizations, percentiles and the three most frequent errors.
func (ph *phase) finish(wall, serverCPU, selfCPU time.Duration, latencies []time.Duration, errs map[string]int) {
	ph.OK = int64(len(latencies))
	ph.Seconds = wall.Seconds()
	ph.ServerCPU = serverCPU.Seconds()
	ph.ClientUtil = selfCPU.Seconds() / ph.Seconds
	ph.rates()
	slices.Sort(latencies)
	ph.P50, ph.P90, ph.P99 = quantileMS(latencies, .50), quantileMS(latencies, .90), quantileMS(latencies, .99)
	if n := len(latencies); n > 0 {
		ph.Max = ms(latencies[n-1])
	}
	keys := slices.SortedFunc(maps.Keys(errs), func(a, b string) int { return errs[b] - errs[a] })
	for _, k := range keys[:min(3, len(keys))] {
		ph.Errors = append(ph.Errors, fmt.Sprintf("%d× %s", errs[k], k))
	}
}

// openLoopMaxWorkers bounds the connections of an open loop that adds them when none
// is idle: plain HTTP on the fixed-rate generator, and every open loop on vegeta.
const openLoopMaxWorkers = 1024

// attack runs l against the server process for d: a closed loop of workers
// connections when rate is 0, else an open loop at rate requests per second (more
// connections are opened when responses are slow, so latency is not hidden by a
// waiting client).
//
// The first skip of the run is not measured: an open loop starts by opening its
// connections (for mTLS, a burst of handshakes), which is not the steady state the
// latency figures describe.
//
// One fixed plain-HTTP request runs on wrk in a closed loop when the harness has it
// (see wrk.go); other closed loops run on vegeta. Open loops run on the fixed-rate
// generator (see fixedrate.go), or on vegeta with -generator vegeta.
func (h *harness) attack(ctx context.Context, p *proc, l httpLoad, rate, workers int, d, skip time.Duration) (phase, error) {
	if rate == 0 && h.usesWrk(l) {
		return h.attackWrk(ctx, p, *l.static, l.want, workers, d)
	}
	if rate > 0 && h.openLoopGenerator() == genFixedRate {
		return h.attackFixedRate(ctx, p, l, rate, workers, d, skip)
	}
	// A closed loop keeps exactly workers connections busy. An open loop starts with
	// workers and adds workers (each with its own connection) whenever all are busy, so
	// a slow server shows as latency rather than as a client that waits; the idle pool
	// must hold them all, or every extra request would dial and close a connection.
	maxWorkers := workers
	if rate > 0 {
		maxWorkers = max(workers, openLoopMaxWorkers)
	}
	if l.client == nil {
		l.client = newLoadClient()
		defer l.client.CloseIdleConnections()
	}
	opts := []func(*vegeta.Attacker){
		vegeta.Client(l.client), // first: the options below configure its transport
		vegeta.Workers(uint64(workers)),
		vegeta.MaxWorkers(uint64(maxWorkers)),
		vegeta.Connections(maxWorkers),
		vegeta.KeepAlive(true),
		vegeta.HTTP2(false),
		vegeta.Timeout(10 * time.Second),
		vegeta.MaxBody(0), // read and discard: the figures are about the server
	}
	if l.tls != nil {
		opts = append(opts, vegeta.TLSConfig(l.tls))
	}
	atk := vegeta.NewAttacker(opts...)
	stop := context.AfterFunc(ctx, func() { atk.Stop() })
	defer stop()

	ph := phase{Generator: genVegeta, Rate: rate, Workers: workers, Statuses: map[string]int{}}
	cpu0, err := procCPU(p.pid())
	if err != nil {
		return ph, err
	}
	self0, start := selfCPU(), time.Now()
	measureFrom := start.Add(skip)
	latencies := make([]time.Duration, 0, 1<<16)
	errs := map[string]int{}
	for res := range atk.Attack(l.targeter(), vegeta.Rate{Freq: rate, Per: time.Second}, d+skip, "") {
		if skip > 0 && res.Timestamp.Before(measureFrom) {
			continue
		}
		if skip > 0 && ph.Requests == 0 {
			if cpu0, err = procCPU(p.pid()); err != nil {
				return ph, err
			}
			self0, start = selfCPU(), time.Now()
		}
		ph.Requests++
		ph.Statuses[strconv.Itoa(int(res.Code))]++
		if int(res.Code) == l.want {
			latencies = append(latencies, res.Latency)
		} else if res.Error != "" {
			errs[res.Error]++
		}
	}
	wall := time.Since(start)
	cpu1, err := phaseEndCPU(ctx, p)
	if err != nil {
		return ph, err
	}
	ph.finish(wall, cpu1-cpu0, selfCPU()-self0, latencies, errs)
	return ph, nil
}

// measured is an HTTP scenario's phases.
type measured struct {
	Max phase `json:"max"`
	// Latency is the open loop at -load × the maximum rate (or at -rate).
	Latency phase `json:"latency"`
	// Calibration are the open loops at lower rates that followed when Latency kept
	// the server's core busier than -load (see nextLoadRate), in the order they ran;
	// the last is the one the latency target is judged on.
	Calibration []phase `json:"calibration,omitempty"`
}

// atLoad is the phase the latency target is judged on: the last calibration phase,
// else the latency phase.
func (m *measured) atLoad() *phase {
	if n := len(m.Calibration); n > 0 {
		return &m.Calibration[n-1]
	}
	return &m.Latency
}

// loadTolerance is how much busier than -load the server's core may be in the phase
// the latency target is judged on; maxCalibration bounds the phases that look for it.
const (
	loadTolerance  = 0.05
	maxCalibration = 4
)

// measure finds the maximum throughput with a closed loop, then measures latency at
// opts.load of it, or at opts.rate when that is set; then, without -rate, at lower
// rates until the server's core is no busier than opts.load (nextLoadRate).
func (h *harness) measure(ctx context.Context, name string, p *proc, l httpLoad) (measured, error) {
	var m measured
	l.client = newLoadClient()
	defer l.client.CloseIdleConnections()
	if l.static != nil {
		if err := probe(ctx, *l.static, l.want, l.tls); err != nil {
			return m, err
		}
	}
	if h.opts.warmup > 0 {
		if _, err := h.attack(ctx, p, l, 0, h.opts.workers, h.opts.warmup, 0); err != nil {
			return m, err
		}
	}
	var err error
	if m.Max, err = h.attack(ctx, p, l, 0, h.opts.workers, h.opts.duration, 0); err != nil {
		return m, err
	}
	// The work the maximum left behind counts for it (see phase.DeferredSeconds), and the
	// latency phase starts once the server has caught up, or it would measure that.
	if wall, cpu := h.settle(ctx, p); wall > 0 {
		m.Max.DeferredSeconds = wall.Seconds()
		m.Max.ServerCPU += cpu.Seconds()
		m.Max.Seconds += wall.Seconds()
		m.Max.rates()
	}
	h.logf("%-16s max %8.0f req/s  server CPU %3.0f%%  %6.1f µs/req  client CPU %3.0f%% (%s)  status %v (deferred work %.1f s)",
		name, m.Max.RPS, 100*m.Max.ServerUtil, m.Max.CPUPerReq, 100*m.Max.ClientUtil, m.Max.Generator, m.Max.Statuses, m.Max.DeferredSeconds)
	rate := int(math.Round(h.opts.load * m.Max.RPS))
	if h.opts.rate > 0 {
		rate = h.opts.rate
	}
	if rate < 1 || h.opts.latencyDur == 0 {
		return m, nil
	}
	if m.Latency, err = h.attack(ctx, p, l, rate, h.opts.workers, h.opts.latencyDur, h.opts.warmup); err != nil {
		return m, err
	}
	h.logPhase(name, "", m.Latency)
	if h.opts.rate > 0 {
		return m, nil
	}
	for last := m.Latency; len(m.Calibration) < maxCalibration; {
		rate, ok := nextLoadRate(h.opts.load, last)
		if !ok {
			break
		}
		if last, err = h.attack(ctx, p, l, rate, h.opts.workers, h.opts.latencyDur, h.opts.warmup); err != nil {
			return m, err
		}
		m.Calibration = append(m.Calibration, last)
		h.logPhase(name, fmt.Sprintf(" (the core was busier than %.0f%%: calibrating)", 100*h.opts.load), last)
	}
	return m, nil
}

// logPhase logs an open-loop phase's figures.
func (h *harness) logPhase(name, note string, ph phase) {
	slow := ""
	if ph.Generator == genFixedRate {
		slow = "  (" + ph.Slow.String() + ")"
	}
	h.logf("%-16s at %6d req/s  p50 %.2f ms  p99 %.2f ms%s  server CPU %3.0f%%  client CPU %3.0f%%  status %v%s",
		name, ph.Rate, ph.P50, ph.P99, slow, 100*ph.ServerUtil, 100*ph.ClientUtil, ph.Statuses, note)
}

// nextLoadRate is the rate of the next open loop that looks for load, the latency
// target's "70 % load", after the open loop ph; ok is false when ph is that phase
// already: its server core was at most load (+ loadTolerance) busy, or it measured
// nothing to go by.
//
// "Load" is the larger of two shares: of the maximum rate, and of the server's core.
// The first alone is what the closed loop allows: 64 connections always busy let the
// server batch many requests per wakeup (per epoll_wait, per write, per commit), and
// an open loop at 70 % of that rate batches less, so each request costs more and the
// core is 85–100 % busy — the bare net/http server's own p99 there is 100–900 ms.
// Lowering the rate in proportion to the excess (rate × load ÷ utilization) lands at
// or a little above load, since a request costs at least as much at a lower rate;
// noise aside, it never undershoots, so the target is not judged on a lighter load
// than asked.
func nextLoadRate(load float64, ph phase) (rate int, ok bool) {
	if load <= 0 || ph.Rate <= 0 || ph.OK == 0 || ph.ServerUtil <= load+loadTolerance {
		return 0, false
	}
	rate = int(math.Round(float64(ph.Rate) * load / ph.ServerUtil))
	if rate < 1 || rate >= ph.Rate {
		return 0, false
	}
	return rate, true
}

// settle waits until the server uses less than a tenth of its core over 200 ms (at
// most 60 s) and returns the wall and CPU time of the busy 200 ms windows before that.
func (h *harness) settle(ctx context.Context, p *proc) (wall, cpu time.Duration) {
	const window = 200 * time.Millisecond
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		before, err := procCPU(p.pid())
		if err != nil {
			return wall, cpu
		}
		start := time.Now()
		time.Sleep(window)
		after, err := procCPU(p.pid())
		if err != nil || after-before < window/10 {
			return wall, cpu
		}
		wall += time.Since(start)
		cpu += after - before
	}
	return wall, cpu
}

func quantileMS(sorted []time.Duration, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return ms(sorted[max(0, min(i, len(sorted)-1))])
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// newLoadClient is an HTTP client for vegeta whose transport the attacker's options
// configure (keep-alive, pool size, TLS, HTTP/1.1).
func newLoadClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext:        (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		DisableCompression: true,
		IdleConnTimeout:    90 * time.Second,
	}}
}

// phaseEndCPU reads the server's CPU time at the end of a phase; a phase whose context
// ended (the run was interrupted) has no figures.
func phaseEndCPU(ctx context.Context, p *proc) (time.Duration, error) {
	cpu, err := procCPU(p.pid())
	if err != nil {
		return 0, err
	}
	return cpu, ctx.Err()
}
