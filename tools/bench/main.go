// Command skygate-bench is the load harness of Skygate. It builds `skygate`, runs it as
// a subprocess pinned to one core, drives it from the other core (closed loops with wrk
// where the load is one fixed plain-HTTP request, else with the vegeta library; open
// loops with its own fixed-rate generator, fixedrate.go), and prints, per scenario, the maximum throughput, the server CPU time per
// request and the latency at a fixed fraction of that maximum, each throughput also as
// a ratio against a bare net/http server measured in the same run.
//
// Targets are ratios measured in one run on the same machine, so the harness also
// measures the references the targets are stated against: a bare net/http handler
// returning a fixed 2 KB body, a no-database ES256 token signer (in a loop and over
// HTTP), a plain SQLite single-insert loop with synchronous=FULL on the same disk, and,
// when given its binary, Ory Hydra's client_credentials token endpoint.
//
// It is a module of its own (tools/bench) so that its load generators stay out of the
// service's dependencies; it builds the server from the service module's tree (-repo).
// See docs/performance.md for how to run it and read its figures.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args, os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "skygate-bench:", err)
		os.Exit(1)
	}
}
