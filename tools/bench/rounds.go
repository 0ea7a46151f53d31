package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// runRounds runs every selected scenario opts.rounds times and merges the rounds into
// one report of medians. Each round runs the references and then the engines, and
// evaluates its own ratios, so a ratio always compares figures of one round: a slow
// period of a shared machine skews the round it falls in, and the median leaves it out.
func (h *harness) runRounds(ctx context.Context) (*report, error) {
	var rounds []*report
	for i := range h.opts.rounds {
		if h.opts.rounds > 1 {
			h.logf("round %d of %d", i+1, h.opts.rounds)
			h.runDir = filepath.Join(h.dir, fmt.Sprintf("round-%d", i+1))
			if err := os.Mkdir(h.runDir, 0o755); err != nil {
				return nil, err
			}
		}
		rep, err := h.runAll(ctx)
		if err != nil {
			return nil, err
		}
		rounds = append(rounds, rep)
	}
	return mergeRounds(rounds)
}

// roundFigures are one round's main figures of a row, kept in the merged report.
type roundFigures struct {
	RPS        float64 `json:"rps"`
	CPUPerReq  float64 `json:"server_cpu_us_per_request"`
	P99        float64 `json:"p99_ms,omitempty"`
	VsBaseline float64 `json:"rps_vs_baseline,omitempty"`
}

// mergeRounds returns the report of the rounds' medians: each figure and each check's
// value is the median of that figure over the rounds (judged again against its bound),
// and a row keeps the phases of the round whose rps is its median. Every round must
// have the same rows in the same order, as runAll makes them.
func mergeRounds(rounds []*report) (*report, error) {
	if len(rounds) == 0 {
		return nil, fmt.Errorf("no rounds")
	}
	first := rounds[0]
	if len(rounds) == 1 {
		first.Machine.Rounds = 1
		return first, nil
	}
	out := &report{Machine: first.Machine}
	out.Machine.Rounds = len(rounds)
	out.Machine.LoadAfter = rounds[len(rounds)-1].Machine.LoadAfter
	for i, r := range first.Rows {
		rows := make([]row, len(rounds))
		for k, rep := range rounds {
			if i >= len(rep.Rows) || rep.Rows[i].Scenario != r.Scenario || rep.Rows[i].Engine != r.Engine {
				return nil, fmt.Errorf("round %d has other rows than round 1", k+1)
			}
			rows[k] = rep.Rows[i]
		}
		out.add(mergeRow(rows))
	}
	return out, nil
}

// mergeRow is the median row of one scenario's rounds.
func mergeRow(rows []row) row {
	m := rows[medianIndex(rows, func(r row) float64 { return r.RPS })]
	if m.Skipped != "" {
		return m
	}
	field := func(get func(r row) float64) float64 { return get(rows[medianIndex(rows, get)]) }
	m.RPS = field(func(r row) float64 { return r.RPS })
	m.ServerUtil = field(func(r row) float64 { return r.ServerUtil })
	m.CPUPerReq = field(func(r row) float64 { return r.CPUPerReq })
	m.P50 = field(func(r row) float64 { return r.P50 })
	m.P99 = field(func(r row) float64 { return r.P99 })
	m.VsBaseline = field(func(r row) float64 { return r.VsBaseline })
	m.VsBaselineCPU = field(func(r row) float64 { return r.VsBaselineCPU })
	m.LatencyUtil = field(func(r row) float64 { return r.LatencyUtil })
	m.AtMaxShare = mergeAtMaxShare(rows)
	m.Paired = mergePaired(rows)
	m.Checks = slices.Clone(m.Checks)
	for c := range m.Checks {
		m.Checks[c].Value = field(func(r row) float64 {
			if c < len(r.Checks) {
				return r.Checks[c].Value
			}
			return 0
		})
		m.Checks[c].judge()
	}
	var rps []string
	for _, r := range rows {
		m.Rounds = append(m.Rounds, roundFigures{RPS: r.RPS, CPUPerReq: r.CPUPerReq, P99: r.P99, VsBaseline: r.VsBaseline})
		rps = append(rps, fmt.Sprintf("%.0f", r.RPS))
	}
	m.Note = joinNote(m.Note, "rps by round "+strings.Join(rps, " / "))
	return m
}

// medianIndex returns the index of the row whose value is the median (the lower one
// of an even count).
func medianIndex(rows []row, value func(r row) float64) int {
	idx := make([]int, len(rows))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		va, vb := value(rows[a]), value(rows[b])
		switch {
		case va < vb:
			return -1
		case va > vb:
			return 1
		}
		return 0
	})
	return idx[(len(idx)-1)/2]
}

// mergeAtMaxShare is the median of each AtMaxShare figure over the rounds, or nil when
// a round has none (its latency phase was already at most as busy as the load).
func mergeAtMaxShare(rows []row) *loadFigures {
	for _, r := range rows {
		if r.AtMaxShare == nil {
			return nil
		}
	}
	field := func(get func(c *loadFigures) float64) float64 {
		return get(rows[medianIndex(rows, func(r row) float64 { return get(r.AtMaxShare) })].AtMaxShare)
	}
	return &loadFigures{
		Rate:       field(func(c *loadFigures) float64 { return c.Rate }),
		ServerUtil: field(func(c *loadFigures) float64 { return c.ServerUtil }),
		P50:        field(func(c *loadFigures) float64 { return c.P50 }),
		P99:        field(func(c *loadFigures) float64 { return c.P99 }),
	}
}
