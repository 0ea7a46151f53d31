package main

import (
	"context"
	"fmt"
	"time"
)

// Interleaved references. On a shared VM a slow period lasts seconds to minutes, and
// the reference measured a minute before a scenario can land in another period than
// the scenario: rounds of one run showed the bare server at 50 163, 30 784 and
// 50 390 requests/s. A paired measurement alternates short closed-loop slices against
// the reference server and against skygate, so that a slow period weighs on both sides
// of the ratio; the catalog targets are judged on it.

// pairedFigures compare a scenario with a reference server over interleaved slices.
type pairedFigures struct {
	Reference    string  `json:"reference"`
	Slices       int     `json:"slices"`
	SliceSeconds float64 `json:"slice_seconds"`
	RefRPS       float64 `json:"reference_rps"`
	RefCPUPerReq float64 `json:"reference_cpu_us_per_request"`
	RPS          float64 `json:"rps"`
	CPUPerReq    float64 `json:"cpu_us_per_request"`
	// Ratio is RPS / RefRPS: successful requests per second of the scenario against the
	// reference's, both summed over their slices.
	Ratio float64 `json:"ratio"`
}

// addSlice adds a closed-loop slice's requests, wall time and server CPU to sum, and
// sets sum's rates.
func addSlice(sum *phase, slice phase) {
	sum.OK += slice.OK
	sum.Seconds += slice.Seconds
	sum.ServerCPU += slice.ServerCPU
	sum.rates()
}

// paired runs opts.pairedSlices alternations of a closed-loop slice against ref (the
// reference server, named refName, sent refLoad) and one against p (sent l), each
// slice opts.duration / opts.pairedSlices long (wrk rounds it up to whole seconds).
func (h *harness) paired(ctx context.Context, label, refName string, ref *proc, refLoad httpLoad, p *proc, l httpLoad) (*pairedFigures, error) {
	n := h.opts.pairedSlices
	slice := h.opts.duration / time.Duration(n)
	refLoad.client, l.client = newLoadClient(), newLoadClient()
	defer refLoad.client.CloseIdleConnections()
	defer l.client.CloseIdleConnections()
	var a, b phase
	for range n {
		ph, err := h.attack(ctx, ref, refLoad, 0, h.opts.workers, slice, 0)
		if err != nil {
			return nil, fmt.Errorf("%s slice: %w", refName, err)
		}
		addSlice(&a, ph)
		if ph, err = h.attack(ctx, p, l, 0, h.opts.workers, slice, 0); err != nil {
			return nil, fmt.Errorf("%s slice: %w", label, err)
		}
		addSlice(&b, ph)
	}
	f := &pairedFigures{
		Reference: refName, Slices: n, SliceSeconds: b.Seconds / float64(n),
		RefRPS: a.RPS, RefCPUPerReq: a.CPUPerReq, RPS: b.RPS, CPUPerReq: b.CPUPerReq,
	}
	if f.RefRPS > 0 {
		f.Ratio = f.RPS / f.RefRPS
	}
	h.logf("%-16s %s (%.2f×)", label, f.note(), f.Ratio)
	return f, nil
}

// note describes the paired figures in a row's note.
func (f *pairedFigures) note() string {
	return fmt.Sprintf("interleaved with %s (%d × %.1f s each): %.0f against %.0f req/s, %.1f against %.1f µs/req",
		f.Reference, f.Slices, f.SliceSeconds, f.RPS, f.RefRPS, f.CPUPerReq, f.RefCPUPerReq)
}

// mergePaired is the paired figures of the round whose ratio is the median, or nil when
// a round has none.
func mergePaired(rows []row) *pairedFigures {
	for _, r := range rows {
		if r.Paired == nil {
			return nil
		}
	}
	return rows[medianIndex(rows, func(r row) float64 { return r.Paired.Ratio })].Paired
}
