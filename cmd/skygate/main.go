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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args, os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "skygate:", err)
		os.Exit(1)
	}
}
