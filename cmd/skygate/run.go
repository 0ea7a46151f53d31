package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"go.opentelemetry.io/otel"

	"github.com/skygate/skygate/internal/config"
	"github.com/skygate/skygate/internal/telemetry"
)

// command is one of skygate's commands. define declares its flags on fs and returns
// the function that runs it once fs parsed the arguments, with fs.Args() as the
// positional arguments (exactly as many as args names).
type command struct {
	name, args, summary string
	nargs               int
	define              func(fs *flag.FlagSet) func(ctx context.Context, c *invocation) error
}

// invocation is what a command runs with: the loaded configuration and the process's
// outputs.
type invocation struct {
	cfg    *config.Config
	log    *slog.Logger
	getenv func(string) string
	args   []string
	stdout io.Writer
}

// commands is every command, in the order the usage lists them.
var commands = []command{
	{name: "serve", summary: "run the API, the employee console and the background workers",
		define: func(*flag.FlagSet) func(context.Context, *invocation) error { return runServe }},
	{name: "migrate", summary: "apply database migrations and exit",
		define: func(*flag.FlagSet) func(context.Context, *invocation) error {
			return func(ctx context.Context, c *invocation) error { return migrate(ctx, c.cfg, c.log) }
		}},
	{name: "bootstrap", summary: "create an account and its first application (idempotent by account name)\nand print the credentials as JSON",
		define: defineBootstrap},
	{name: "catalog import", args: "FILE", nargs: 1, summary: "validate a catalog JSON document and store it as the current catalog",
		define: func(*flag.FlagSet) func(context.Context, *invocation) error {
			return func(ctx context.Context, c *invocation) error {
				return importCatalog(ctx, c.cfg, c.log, c.args[0], c.stdout)
			}
		}},
	{name: "keys rotate", summary: "create a new signing key: published at once, signing after SKYGATE_KEY_PREPUBLISH",
		define: func(*flag.FlagSet) func(context.Context, *invocation) error {
			return func(ctx context.Context, c *invocation) error { return rotateKeys(ctx, c.cfg, c.log, c.stdout) }
		}},
}

// run is the whole program; main only wires the process to it so tests can run the
// real thing in-process. Help (-h, --help, help [COMMAND]) and version touch neither
// the configuration's files nor the database nor any port.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) < 2 {
		printUsage(stderr)
		return errors.New("a command is required")
	}
	switch args[1] {
	case "-h", "-help", "--help", "help":
		if len(args) > 2 {
			if c, rest, ok := findCommand(args[2:]); ok && len(rest) == 0 {
				return printCommandUsage(stdout, c)
			}
			printUsage(stderr)
			return fmt.Errorf("unknown command %q", strings.Join(args[2:], " "))
		}
		printUsage(stdout)
		return nil
	case "version", "-version", "--version":
		if len(args) > 2 {
			return fmt.Errorf("version takes no arguments, got %q", args[2:])
		}
		return printVersion(stdout)
	}
	c, rest, ok := findCommand(args[1:])
	if !ok {
		printUsage(stderr)
		return fmt.Errorf("unknown command %q", strings.Join(args[1:], " "))
	}
	fs := flag.NewFlagSet("skygate "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	exec := c.define(fs)
	switch err := fs.Parse(rest); {
	case errors.Is(err, flag.ErrHelp):
		return printCommandUsage(stdout, c)
	case err != nil:
		return fmt.Errorf("%s: %w (skygate %s --help lists its flags)", c.name, err, c.name)
	case fs.NArg() != c.nargs:
		if c.nargs == 0 {
			return fmt.Errorf("%s takes no arguments, got %q (skygate %s --help)", c.name, fs.Args(), c.name)
		}
		return fmt.Errorf("%s takes %s, got %q (skygate %s --help)", c.name, c.args, fs.Args(), c.name)
	}
	cfg, err := config.Load(getenv)
	if err != nil {
		return err
	}
	if err := checkDatabase(ctx, cfg); err != nil {
		return err
	}
	return exec(ctx, &invocation{cfg: cfg, log: newLogger(stderr, cfg.LogLevel), getenv: getenv, args: fs.Args(), stdout: stdout})
}

// findCommand returns the command args start with, and the arguments after its name.
func findCommand(args []string) (command, []string, bool) {
	for _, c := range commands {
		words := strings.Fields(c.name)
		if len(args) >= len(words) && slices.Equal(args[:len(words)], words) {
			return c, args[len(words):], true
		}
	}
	return command{}, nil, false
}

// runServe is the serve command.
func runServe(ctx context.Context, c *invocation) error {
	c.log.Info("garbage collector", "gogc", tuneGC(c.getenv))
	tr, log, err := startTracing(ctx, c.getenv, c.log)
	if err != nil {
		return err
	}
	defer stopTracing(ctx, tr, log)
	stopProfile, err := startCPUProfile(c.cfg.CPUProfile)
	if err != nil {
		return err
	}
	return errors.Join(serve(ctx, c.cfg, log, c.stdout, tr), stopProfile())
}

// startTracing sets up tracing from the OpenTelemetry variables of the environment
// (telemetry.Setup) and returns it with the logger to use: log itself when tracing is
// off, else log adding the trace_id and span_id of the span in each record's context.
// Errors of the exporter go to that logger.
func startTracing(ctx context.Context, getenv func(string) string, log *slog.Logger) (*telemetry.Tracing, *slog.Logger, error) {
	tr, err := telemetry.Setup(ctx, getenv, version)
	if err != nil {
		return nil, nil, err
	}
	if !tr.Enabled() {
		return tr, log, nil
	}
	if h, ok := log.Handler().(*jsonHandler); ok {
		log = slog.New(&jsonHandler{Handler: telemetry.LogHandler(h.Handler), w: h.w})
	} else {
		log = slog.New(telemetry.LogHandler(log.Handler()))
	}
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { log.Warn("tracing", "error", err) }))
	log.Info("tracing", "endpoint", tr.Endpoint, "protocol", tr.Protocol)
	return tr, log, nil
}

// stopTracing exports the spans still queued, for up to five seconds.
func stopTracing(ctx context.Context, tr *telemetry.Tracing, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := tr.Shutdown(ctx); err != nil {
		log.Warn("tracing: spans lost at shutdown", "error", err)
	}
}

// printUsage writes the program's usage: the commands and the configuration. Like
// flag.PrintDefaults it ignores write errors: usage goes to a terminal, and a failed
// write there has nowhere else to be reported.
func printUsage(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	_, _ = fmt.Fprint(tw, "usage: skygate COMMAND [flags] [arguments]\n\ncommands:\n")
	for _, c := range commands {
		summary, _, _ := strings.Cut(c.summary, "\n")
		_, _ = fmt.Fprintf(tw, "  %s\t%s\n", strings.TrimSpace(c.name+" "+c.args), summary)
	}
	_, _ = fmt.Fprintf(tw, "  %s\t%s\n", "version", "print the version and build information")
	_, _ = fmt.Fprintf(tw, "  %s\t%s\n", "help [COMMAND]", "print this, or a command's flags")
	_ = tw.Flush()
	_, _ = fmt.Fprint(w, "\nEvery command but version and help reads its configuration from these environment\nvariables (default in the middle column; README.md has the details):\n\n")
	_ = config.PrintVariables(w, config.Variables)
	printTracingVariables(w)
}

// printTracingVariables writes the OpenTelemetry variables that serve reads; like
// printUsage it ignores write errors.
func printTracingVariables(w io.Writer) {
	_, _ = fmt.Fprint(w, "\nserve traces requests with OpenTelemetry when the standard OTEL_* variables name an\nOTLP endpoint (off otherwise; README.md, Tracing):\n\n")
	_ = config.PrintVariables(w, telemetry.Variables)
}

// printCommandUsage writes c's usage, flags and the configuration variables.
func printCommandUsage(w io.Writer, c command) error {
	fs := flag.NewFlagSet("skygate "+c.name, flag.ContinueOnError)
	c.define(fs)
	_, _ = fmt.Fprintf(w, "usage: skygate %s", c.name)
	if hasFlags(fs) {
		_, _ = fmt.Fprint(w, " [flags]")
	}
	if c.args != "" {
		_, _ = fmt.Fprint(w, " "+c.args)
	}
	_, _ = fmt.Fprintf(w, "\n\n%s\n", c.summary)
	if hasFlags(fs) {
		_, _ = fmt.Fprint(w, "\nflags:\n")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
	_, _ = fmt.Fprint(w, "\nconfiguration (environment variables):\n\n")
	if err := config.PrintVariables(w, config.Variables); err != nil {
		return err
	}
	if c.name == "serve" {
		printTracingVariables(w)
	}
	return nil
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// newLogger returns the service's logger: JSON lines to w, from level on (info when
// level is not one).
func newLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.ToUpper(level))); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(&jsonHandler{Handler: slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l}), w: w})
}

// jsonHandler is slog's JSON handler, or that handler wrapped by telemetry.LogHandler
// (startTracing), that remembers its writer, so that newApp can give it to the access
// log (httpapi.Deps.AccessLogOutput). Loggers derived with With or WithGroup have the
// handler without the writer, and logOutput none.
type jsonHandler struct {
	slog.Handler
	w io.Writer
}

// logOutput returns the writer of a logger that newLogger returned, else nil.
func logOutput(log *slog.Logger) io.Writer {
	if h, ok := log.Handler().(*jsonHandler); ok {
		return h.w
	}
	return nil
}
