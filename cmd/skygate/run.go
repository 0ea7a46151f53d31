package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"strings"

	"github.com/skygate/skygate/internal/config"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

const usage = `usage: skygate <command>

commands:
  serve                                   run the API and the background workers
  migrate                                 apply database migrations and exit
  bootstrap --account NAME --scopes "a b" [--sandbox] [--client-cert-sha256 X]
                                          create an account and an application (idempotent
                                          by account name) and print its credentials as JSON
  catalog import FILE                     validate and store a catalog JSON document
  keys rotate                             create a new signing key (pre-published)
  version                                 print version and build info

configuration: SKYGATE_* environment variables (see README.md)
`

// run is the whole program; main only wires the process to it so tests can run the
// real thing in-process.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) < 2 {
		fmt.Fprint(stderr, usage)
		return errors.New("a command is required")
	}
	cmd, rest := args[1], args[2:]
	if cmd == "version" {
		return printVersion(stdout)
	}
	if cmd == "help" || cmd == "-h" || cmd == "--help" {
		fmt.Fprint(stdout, usage)
		return nil
	}
	cfg, err := config.Load(getenv)
	if err != nil {
		return err
	}
	log := newLogger(stderr, cfg.LogLevel)
	switch cmd {
	case "serve":
		log.Info("garbage collector", "gogc", tuneGC(getenv))
		stopProfile, err := startCPUProfile(cfg.CPUProfile)
		if err != nil {
			return err
		}
		return errors.Join(serve(ctx, cfg, log, stdout), stopProfile())
	case "migrate":
		return migrate(ctx, cfg, log)
	case "bootstrap":
		return bootstrap(ctx, cfg, log, rest, stdout)
	case "keys":
		if len(rest) != 1 || rest[0] != "rotate" {
			return errors.New(`usage: skygate keys rotate`)
		}
		return rotateKeys(ctx, cfg, log, stdout)
	case "catalog":
		if len(rest) != 2 || rest[0] != "import" {
			return errors.New(`usage: skygate catalog import FILE`)
		}
		return importCatalog(ctx, cfg, log, rest[1], stdout)
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("unknown command %q", cmd)
	}
}

// newLogger returns the service's logger: JSON lines to w, from level on (info when
// level is not one).
func newLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.ToUpper(level))); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(&jsonHandler{JSONHandler: slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l}), w: w})
}

// jsonHandler is slog's JSON handler that remembers its writer, so that newApp can
// give it to the access log (httpapi.Deps.AccessLogOutput). Loggers derived with With
// or WithGroup have the plain JSON handler, and logOutput none.
type jsonHandler struct {
	*slog.JSONHandler
	w io.Writer
}

// logOutput returns the writer of a logger that newLogger returned, else nil.
func logOutput(log *slog.Logger) io.Writer {
	if h, ok := log.Handler().(*jsonHandler); ok {
		return h.w
	}
	return nil
}

func printVersion(w io.Writer) error {
	goVersion, revision := "", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		goVersion = bi.GoVersion
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				revision = s.Value
			}
		}
	}
	_, err := fmt.Fprintf(w, "skygate %s (go %s, revision %s)\n", version, goVersion, orUnknown(revision))
	return err
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
