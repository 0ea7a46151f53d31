package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strconv"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// idleClosedMetric counts, per database pool of the server, the connections that
// database/sql closed because its idle limit was reached. It rising during a scenario
// means the pool reconnects whenever its load dips and rises, which puts new backends
// on the requests.
const idleClosedMetric = "go_sql_max_idle_closed_total"

// idleClosed returns idleClosedMetric summed over the server's pools, from the
// operator listener's /metrics (0 for a server that does not export it).
func (s *server) idleClosed(ctx context.Context) (float64, error) {
	resp, body, err := do(ctx, s.plain, vegeta.Target{Method: http.MethodGet, URL: s.ops + "/metrics"})
	if err != nil {
		return 0, fmt.Errorf("metrics: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("metrics: %d %.300s", resp.StatusCode, body)
	}
	return sumSamples(body, idleClosedMetric), nil
}

// idleClosedNote describes n connections closed for the idle limit during a scenario,
// or is empty for none.
func idleClosedNote(n float64) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf("the database pools closed %.0f connections at their idle limit (%s): they reconnect under load", n, idleClosedMetric)
}

// sumSamples adds the values of every sample of metric, whatever its labels, in a
// Prometheus text exposition.
func sumSamples(text []byte, metric string) float64 {
	var sum float64
	for line := range bytes.Lines(text) {
		rest, ok := bytes.CutPrefix(line, []byte(metric))
		if !ok || len(rest) == 0 || (rest[0] != '{' && rest[0] != ' ') {
			continue // a comment, another metric, or one whose name only starts so
		}
		if rest[0] == '{' {
			end := bytes.LastIndexByte(rest, '}')
			if end < 0 {
				continue
			}
			rest = rest[end+1:]
		}
		if f := bytes.Fields(rest); len(f) > 0 {
			if v, err := strconv.ParseFloat(string(f[0]), 64); err == nil {
				sum += v
			}
		}
	}
	return sum
}
