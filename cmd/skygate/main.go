// Command skygate is the Skygate service: `serve`, `migrate`, `bootstrap`, `keys rotate`
// and `version`. Configuration comes from SKYGATE_* environment variables.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signalContext()
	err := run(ctx, os.Args, os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "skygate:", err)
		os.Exit(1)
	}
}

// signalContext returns a context that ends at the first SIGINT or SIGTERM: serve
// drains and stops (SKYGATE_SHUTDOWN_DELAY, SKYGATE_SHUTDOWN_TIMEOUT). A second one
// ends the process at once with status 1, as operators expect of Ctrl-C twice: what
// is in flight is cut as a crash would cut it, which the service survives (claims
// are retaken, unacknowledged requests are retried with their Idempotency-Key).
func signalContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		cancel()
		s := <-sigs
		fmt.Fprintf(os.Stderr, "skygate: second signal (%v): exiting at once, without finishing the shutdown\n", s)
		os.Exit(1)
	}()
	return ctx, func() { signal.Stop(sigs); cancel() }
}
