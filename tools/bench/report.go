package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
)

// row is one line of the table.
type row struct {
	Scenario string `json:"scenario"`
	Engine   string `json:"engine,omitempty"`
	// Kind is "http" (RPS is successful requests per second), "loop" (operations
	// per second of a reference loop), "deliveries" or "wake" (RPS is rounds per second;
	// P50 and P99 are the wake-up latencies of every round).
	Kind       string  `json:"kind,omitempty"`
	RPS        float64 `json:"rps"`
	ServerUtil float64 `json:"server_cpu_utilization"`
	// CPUPerReq is server CPU time per successful request at maximum throughput, µs.
	CPUPerReq float64 `json:"server_cpu_us_per_request"`
	// P50 and P99 are latencies at LatencyRate, ms: in the phase the latency target is
	// judged on (measured.atLoad), where the server's core was LatencyUtil busy.
	P50         float64 `json:"p50_ms,omitempty"`
	P99         float64 `json:"p99_ms,omitempty"`
	LatencyRate int     `json:"latency_rate,omitempty"`
	LatencyUtil float64 `json:"latency_server_cpu_utilization,omitempty"`
	VsBaseline  float64 `json:"rps_vs_baseline,omitempty"`
	// VsBaselineCPU is the baseline's CPU per request over this one's: the throughput
	// ratio a server-bound run would show, whatever the load generator manages.
	VsBaselineCPU float64 `json:"cpu_capacity_vs_baseline,omitempty"`
	Checks        []check `json:"checks,omitempty"`
	// AtMaxShare is the latency phase at -load × the maximum rate when it kept the
	// server's core busier than -load and lower rates followed: a reading beside the
	// target, which is judged at the lower rate.
	AtMaxShare *loadFigures `json:"at_max_share,omitempty"`
	// Paired is the comparison with the bare server in interleaved slices (catalog
	// scenarios, paired.go); the catalog's ratio targets are judged on it when present.
	Paired *pairedFigures `json:"paired,omitempty"`
	// Rounds are each round's figures when the harness ran several (-rounds).
	Rounds []roundFigures `json:"rounds,omitempty"`
	// Deliveries are the webhooks scenario's order and wait figures.
	Deliveries *deliveryFigures `json:"deliveries,omitempty"`
	Note       string           `json:"note,omitempty"`
	Skipped    string           `json:"skipped,omitempty"`
	Phases     *measured        `json:"phases,omitempty"`
}

// check is one target of the issue, evaluated.
type check struct {
	Target string  `json:"target"`
	Value  float64 `json:"value"`
	Pass   bool    `json:"pass"`
	// Want is the bound, a floor unless AtMost: what Pass is recomputed from when
	// rounds are merged.
	Want   float64 `json:"want"`
	AtMost bool    `json:"at_most,omitempty"`
}

// judge sets Pass from Value and the bound.
func (c *check) judge() {
	if c.AtMost {
		c.Pass = c.Value <= c.Want
	} else {
		c.Pass = c.Value >= c.Want
	}
}

// loadFigures are an open-loop phase's main figures.
type loadFigures struct {
	Rate       float64 `json:"rate"`
	ServerUtil float64 `json:"server_cpu_utilization"`
	P50        float64 `json:"p50_ms"`
	P99        float64 `json:"p99_ms"`
}

func httpRow(name, engine string, m measured) row {
	at := m.atLoad()
	r := row{Scenario: name, Engine: engine, Kind: "http", RPS: m.Max.RPS, ServerUtil: m.Max.ServerUtil,
		CPUPerReq: m.Max.CPUPerReq, P50: at.P50, P99: at.P99, LatencyRate: at.Rate, LatencyUtil: at.ServerUtil, Phases: &m}
	if len(m.Calibration) > 0 {
		l := m.Latency
		r.AtMaxShare = &loadFigures{Rate: float64(l.Rate), ServerUtil: l.ServerUtil, P50: l.P50, P99: l.P99}
	}
	if e := m.Max.errorRate(); e > 0 {
		r.Note = fmt.Sprintf("%.1f%% unexpected statuses %v %v", 100*e, m.Max.Statuses, m.Max.Errors)
	}
	// One core of load generator (vegeta's especially) costs about as much per request
	// as a bare server: say when it, not the server, set the pace, or queued the latency
	// phase.
	if m.Max.ServerUtil < 0.9 && m.Max.ClientUtil > 0.85 {
		r.Note = joinNote(r.Note, fmt.Sprintf("load-generator-bound (client CPU %.0f%%, server %.0f%%): compare ×base cpu", 100*m.Max.ClientUtil, 100*m.Max.ServerUtil))
	}
	// An open loop at a fraction of the maximum rate batches less per wakeup than the
	// saturated closed loop, so each request costs the server more: say when the
	// latency phase loaded it well beyond that fraction, and where the target went.
	if l := m.Latency; m.Max.RPS > 0 && l.Rate > 0 {
		if want := m.Max.ServerUtil * float64(l.Rate) / m.Max.RPS; l.ServerUtil > want+0.1 {
			r.Note = joinNote(r.Note, fmt.Sprintf("at %d req/s the server's core was %.0f%% busy (%.0f µs/req against %.0f at max)",
				l.Rate, 100*l.ServerUtil, l.CPUPerReq, m.Max.CPUPerReq))
		}
	}
	if n := len(m.Calibration); n > 0 {
		r.Note = joinNote(r.Note, fmt.Sprintf("latency judged at %d req/s (%d lower rate(s) tried), server CPU %.0f%%", at.Rate, n, 100*at.ServerUtil))
		if n == maxCalibration && at.ServerUtil > m.Latency.ServerUtil-loadTolerance {
			// A group committer does more work per request as its batches shrink, so its
			// core stays about as busy at a lower rate: the rate fell, the load did not.
			r.Note = joinNote(r.Note, fmt.Sprintf("the core stayed %.0f–%.0f%% busy down to %.0f%% of the maximum rate",
				100*min(at.ServerUtil, m.Latency.ServerUtil), 100*max(at.ServerUtil, m.Latency.ServerUtil), 100*float64(at.Rate)/m.Max.RPS))
		}
	}
	if at.ClientUtil > 0.7 {
		r.Note = joinNote(r.Note, fmt.Sprintf("latency phase: client CPU %.0f%%, its queueing is in p50/p99", 100*at.ClientUtil))
	}
	return r
}

// report is the whole run.
type report struct {
	Machine machine `json:"machine"`
	Rows    []row   `json:"rows"`
}

func (rep *report) add(r row) { rep.Rows = append(rep.Rows, r) }

func (rep *report) find(scenario, engine string) *row {
	for i := range rep.Rows {
		if r := &rep.Rows[i]; r.Scenario == scenario && r.Engine == engine && r.Skipped == "" && r.RPS > 0 {
			return r
		}
	}
	return nil
}

// evaluate computes the ratios and checks the targets.
func (rep *report) evaluate() {
	base := rep.find(scBaseline, "")
	// The catalog's targets compare like with like: the baseline answering the same
	// request bytes (baseline-req) when it ran, else the plain baseline.
	catalogBase, catalogBaseName := rep.find(scBaselineReq, ""), scBaselineReq
	if catalogBase == nil {
		catalogBase, catalogBaseName = base, scBaseline
	}
	base304 := rep.find(scBaseline304, "")
	signHTTP := rep.find(scSignHTTP, "")
	signLoop := rep.find(scSignLoop, "")
	inserts := rep.find(scInsertLoop, engineSQLite)
	hydra := rep.find(scHydraToken, enginePostgres)
	for i := range rep.Rows {
		r := &rep.Rows[i]
		if r.Skipped != "" || r.RPS == 0 {
			continue
		}
		if base != nil && r.Kind == "http" {
			r.VsBaseline = r.RPS / base.RPS
			if r.CPUPerReq > 0 {
				r.VsBaselineCPU = base.CPUPerReq / r.CPUPerReq
			}
		}
		add := func(c check) {
			c.judge()
			r.Checks = append(r.Checks, c)
		}
		atLeast := func(target string, v, want float64) { add(check{Target: target, Value: v, Want: want}) }
		atMost := func(target string, v, want float64) {
			add(check{Target: target, Value: v, Want: want, AtMost: true})
		}
		// catalogRatio judges a catalog row's throughput against the bare server: in
		// interleaved slices when they ran, else against the reference's own run.
		catalogRatio := func(want float64) {
			switch {
			case r.Paired != nil:
				atLeast(fmt.Sprintf("≥%.2f× %s, interleaved", want, r.Paired.Reference), r.Paired.Ratio, want)
			case catalogBase != nil:
				atLeast(fmt.Sprintf("≥%.2f× %s", want, catalogBaseName), r.RPS/catalogBase.RPS, want)
			}
		}
		switch r.Scenario {
		case scToken:
			atLeast("≥8000 tokens/s", r.RPS, 8000)
			if signHTTP != nil {
				atLeast("≥0.5× es256-http", r.RPS/signHTTP.RPS, 0.5)
			}
			if signLoop != nil {
				r.Note = joinNote(r.Note, fmt.Sprintf("%.2f× the raw ES256 sign loop", r.RPS/signLoop.RPS))
			}
			if hydra != nil {
				atLeast("≥10× hydra-token", r.RPS/hydra.RPS, 10)
			}
		case scCatalog200:
			catalogRatio(0.70)
			atMost("≤25 µs CPU/req", r.CPUPerReq, 25)
		case scBaseline304:
			if catalogBase != nil && catalogBase != r {
				r.Note = joinNote(r.Note, fmt.Sprintf("%.2f× %s: net/http's own 304 with the catalog's five header fields against its 2 KB 200", r.RPS/catalogBase.RPS, catalogBaseName))
			}
		case scCatalog304:
			catalogRatio(0.90)
			if base304 != nil {
				r.Note = joinNote(r.Note, fmt.Sprintf("%.2f× %s (not interleaved): what skygate adds to net/http's own 304", r.RPS/base304.RPS, scBaseline304))
			}
		case scBooking:
			if r.Engine == engineSQLite && inserts != nil {
				atLeast("≥0.8× insert-loop", r.RPS/inserts.RPS, 0.8)
			}
		case scBookingPriced:
			// Create with reservation beside today's create: what the slot places and
			// the reservation cost, on the same engine. Measured, not judged: the issue
			// sets no target for it.
			if plain := rep.find(scBooking, r.Engine); plain != nil {
				r.Note = joinNote(r.Note, fmt.Sprintf("%.2f× %s on %s", r.RPS/plain.RPS, scBooking, r.Engine))
			}
		}
		// The latency target is skygate's; Hydra is a reference. Under -rate the phase
		// ran at a rate of the operator's choosing, not at the target's load.
		if r.Kind == "http" && r.Engine != "" && r.Scenario != scHydraToken && r.LatencyRate > 0 && rep.Machine.LatencyRate == 0 {
			atMost(fmt.Sprintf("p99<%g ms at %.0f%% load", ms(slowLatency), 100*rep.Machine.LatencyLoad), r.P99, ms(slowLatency))
		}
		if r.Phases != nil {
			// Every phase: the latency phases' percentiles count only expected answers,
			// so their errors must fail the row too (an emptied eSIM pool answered 409s).
			errRate := r.Phases.Max.errorRate()
			for _, l := range append([]phase{r.Phases.Latency}, r.Phases.Calibration...) {
				if l.Requests > 0 {
					errRate = max(errRate, l.errorRate())
				}
			}
			atMost("≤1% errors", 100*errRate, 1)
			if g := r.Phases.Max.Generator; g != "" && g != rep.Machine.Generator {
				r.Note = joinNote(r.Note, "max measured by "+g+" (each request differs, or mTLS)")
			}
		}
	}
}

// joinNote joins two notes of a row, either of which may be empty.
func joinNote(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}

// writeTable prints the table of figures. Like flag.PrintDefaults it ignores write
// errors: the table goes to a terminal, where a failed write has nowhere to be reported.
func (rep *report) writeTable(w io.Writer) {
	m := rep.Machine
	_, _ = fmt.Fprintf(w, "\n%d × %s, %s; load average %.2f before, %.2f after", m.CPUs, m.Model, m.GoVersion, m.LoadBefore, m.LoadAfter)
	if m.Pinned {
		_, _ = fmt.Fprintf(w, "; server on CPU %s, load generator on CPU %s", m.ServerCPU, m.ClientCPUs)
	} else {
		_, _ = fmt.Fprint(w, "; not pinned")
	}
	if m.Nice != 0 {
		_, _ = fmt.Fprintf(w, "; niceness %d", m.Nice)
		if m.DBNice != nil {
			_, _ = fmt.Fprintf(w, ", PostgreSQL's processes too")
		}
	}
	gen := "vegeta"
	if m.Generator == genWrk {
		gen = "wrk"
		if m.WrkVersion != "" {
			gen = m.WrkVersion
		}
		gen += " (vegeta where requests differ or need mTLS)"
	}
	latencyGen := "vegeta"
	if m.LatencyGenerator == genFixedRate {
		latencyGen = "fixed-rate, latency from when each request was due; mTLS on a pool of as many connections as the closed loop's"
	}
	at := fmt.Sprintf("%.0f%% load (%.0f%% of max, lowered until the server's core is at most %.0f%% busy)",
		100*m.LatencyLoad, 100*m.LatencyLoad, 100*(m.LatencyLoad+loadTolerance))
	if m.LatencyRate > 0 {
		at = fmt.Sprintf("a fixed %d req/s (-rate; p99 targets not judged)", m.LatencyRate)
	}
	_, _ = fmt.Fprintf(w, "\nmax: closed loop, %d connections, %s, %s; latency: open loop (%s) at %s; server log level %s\n",
		m.Workers, m.Duration, gen, latencyGen, at, m.LogLevel)
	if m.Rounds > 1 {
		_, _ = fmt.Fprintf(w, "every figure and ratio: the median of %d rounds, each ratio taken within its round\n", m.Rounds)
	}
	_, _ = fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	_, _ = fmt.Fprintln(tw, "scenario\tengine\trps\tsrv cpu\tµs cpu/req\tp50 ms\tp99 ms\t@rps\t@cpu\t×base\t×base cpu\ttargets")
	for _, r := range rep.Rows {
		engine := r.Engine
		if engine == "" {
			engine = "-"
		}
		if r.Skipped != "" {
			_, _ = fmt.Fprintf(tw, "%s\t%s\t\t\t\t\t\t\t\t\t\tskipped: %s\n", r.Scenario, engine, r.Skipped)
			continue
		}
		_, _ = fmt.Fprintf(tw, "%s\t%s\t%.0f\t%.0f%%\t%.1f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Scenario, engine, r.RPS, 100*r.ServerUtil, r.CPUPerReq,
			num(r.P50, "%.2f"), num(r.P99, "%.2f"), num(float64(r.LatencyRate), "%.0f"), num(100*r.LatencyUtil, "%.0f%%"),
			num(r.VsBaseline, "%.2f"), num(r.VsBaselineCPU, "%.2f"), checks(r.Checks))
	}
	_ = tw.Flush()
	var notes []string
	for _, r := range rep.Rows {
		if r.Note != "" && r.Skipped == "" {
			notes = append(notes, fmt.Sprintf("  %s/%s: %s", r.Scenario, orDash(r.Engine), r.Note))
		}
	}
	if len(notes) > 0 {
		_, _ = fmt.Fprintf(w, "\nnotes:\n%s\n", strings.Join(notes, "\n"))
	}
	rep.writeAtMaxShare(w)
}

// writeAtMaxShare prints the latency at -load × the maximum rate of the rows where
// that kept the server's core busier than -load: readings beside the target, which is
// judged at the lower rate in the table.
func (rep *report) writeAtMaxShare(w io.Writer) {
	var lines []string
	for _, r := range rep.Rows {
		if c := r.AtMaxShare; c != nil && r.Skipped == "" {
			lines = append(lines, fmt.Sprintf("%s\t%s\t%.0f\t%.0f%%\t%.2f\t%.2f", r.Scenario, orDash(r.Engine), c.Rate, 100*c.ServerUtil, c.P50, c.P99))
		}
	}
	if len(lines) == 0 {
		return
	}
	_, _ = fmt.Fprintf(w, "\nlatency at %.0f%% of the maximum rate, where the server's core was busier than %.0f%% (a reading; the target is judged at @rps above):\n",
		100*rep.Machine.LatencyLoad, 100*rep.Machine.LatencyLoad)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	_, _ = fmt.Fprintln(tw, "scenario\tengine\treq/s\tsrv cpu\tp50 ms\tp99 ms")
	for _, l := range lines {
		_, _ = fmt.Fprintln(tw, l)
	}
	_ = tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func num(v float64, format string) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf(format, v)
}

func checks(cs []check) string {
	var parts []string
	for _, c := range cs {
		verdict := "FAIL"
		if c.Pass {
			verdict = "pass"
		}
		parts = append(parts, fmt.Sprintf("%s %s (%.3g)", verdict, c.Target, c.Value))
	}
	return strings.Join(parts, ", ")
}

// writeJSON writes the report to path, or to stdout for "-".
func (rep *report) writeJSON(path string, stdout io.Writer) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if path == "-" {
		_, err = stdout.Write(b)
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
