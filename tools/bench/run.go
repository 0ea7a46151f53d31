package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

const usage = `usage: skygate-bench [flags]            run the scenarios and print the table
       skygate-bench baseline-server [-sign] bare net/http server (2 KB body, or an ES256 signer)
       skygate-bench insert-loop -path FILE -duration D
                                             plain SQLite single-insert loop, synchronous=FULL
       skygate-bench sign-loop -duration D   ES256 signatures in a loop on one core

The last three are the references the harness starts as pinned subprocesses of itself.
PostgreSQL runs when SKYGATE_BENCH_DATABASE_URL or SKYGATE_TEST_DATABASE_URL is set.
hydra-token (Ory Hydra's client_credentials, the token endpoint's comparison) runs
when a PostgreSQL DSN is set and -hydra-bin or SKYGATE_BENCH_HYDRA_BIN names a binary.

flags:
`

// options are the flags of a harness run.
type options struct {
	duration   time.Duration // closed-loop (maximum throughput) phase of each scenario
	latencyDur time.Duration // fixed-rate phase at load × maximum
	warmup     time.Duration
	workers    int
	rounds     int
	// pairedSlices is the number of interleaved slices of the catalog scenarios'
	// comparison with the bare server (paired.go); 0 turns it off.
	pairedSlices int
	load         float64
	rate         int // 0, or the fixed rate of every latency phase instead of load × maximum
	scenarios    []string
	engines      []string
	pin          bool
	serverCPU    string
	clientCPUs   string
	jsonPath     string
	serverBin    string
	repo         string // -repo: the service module's root directory, where the server is built
	buildPkg     string // -build: the server's package, relative to repo
	buildFlags   string // -build-flags: more go build flags, space-separated
	workDir      string
	keep         bool
	logLevel     string
	nice         int
	dbNice       bool // -db-nice: PostgreSQL's processes at -nice too, when they run here
	esimPool     int
	catalogURL   string
	pgDSN        string
	generator    string // -generator as given
	wrkPath      string // wrk's path when it runs the closed loops, else ""
	hydraBin     string
	profileDir   string // -server-cpu-profiles: each skygate server's CPU profile goes here
}

// allScenarios are the scenario names in the order they run and print.
var allScenarios = []string{
	scBaseline, scSignLoop, scSignHTTP, scInsertLoop, scHydraToken,
	scToken, scTokenPrivateKeyJWT, scIntrospect, scBaselineReq, scBaseline304, scCatalog200, scCatalog304, scBooking, scBookingPriced, scESIMOrder, scWebhooks,
	scEventsRead, scEventsWake,
}

// run is the whole program; main only wires the process to it.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) > 1 {
		switch args[1] {
		case "baseline-server":
			return baselineServer(ctx, args[2:], stderr)
		case "insert-loop":
			return insertLoop(ctx, args[2:], stdout)
		case "sign-loop":
			return signLoop(ctx, args[2:], stdout)
		case "help", "-h", "--help":
			newFlags(stdout).fs.Usage()
			return nil
		}
	}
	f := newFlags(stderr)
	if err := f.fs.Parse(args[1:]); err != nil {
		return err
	}
	if f.fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (see -h)", f.fs.Arg(0))
	}
	opts, err := f.options(getenv)
	if err != nil {
		return err
	}
	h, err := newHarness(ctx, opts, stderr)
	if err != nil {
		return err
	}
	defer h.close()
	rep, err := h.runRounds(ctx)
	if err != nil {
		return err
	}
	rep.writeTable(stdout)
	if opts.jsonPath != "" {
		return rep.writeJSON(opts.jsonPath, stdout)
	}
	return nil
}

// flags holds the flag set and the raw values that need checking.
type flags struct {
	fs                 *flag.FlagSet
	o                  options
	scenarios, engines string
}

func newFlags(out io.Writer) *flags {
	f := &flags{fs: flag.NewFlagSet("skygate-bench", flag.ContinueOnError)}
	f.fs.SetOutput(out)
	f.fs.Usage = func() { _, _ = fmt.Fprint(out, usage); f.fs.PrintDefaults() }
	o := &f.o
	f.fs.DurationVar(&o.duration, "duration", 5*time.Second, "closed-loop phase (maximum throughput) of each scenario; wrk rounds it up to whole seconds")
	f.fs.DurationVar(&o.latencyDur, "latency-duration", 0, "fixed-rate phase at -load × maximum (default: -duration)")
	f.fs.DurationVar(&o.warmup, "warmup", time.Second, "unmeasured load before each scenario")
	f.fs.IntVar(&o.workers, "workers", 64, "concurrent connections of the closed-loop phase")
	f.fs.IntVar(&o.rounds, "rounds", 1, "run every scenario this many times (references, then engines, per round) and report the medians: on a noisy machine one run can land in a slow period")
	f.fs.IntVar(&o.pairedSlices, "paired-slices", 5, "judge the catalog targets on this many alternating closed-loop slices against the bare server sent the same request and against skygate, each -duration/N (wrk: whole seconds), so that a slow period of a shared machine weighs on both sides of the ratio (0: against the separate baseline-req run)")
	f.fs.Float64Var(&o.load, "load", 0.7, "load of the latency target: the latency phase runs at this fraction of the maximum throughput, then at lower rates until the server's core is at most this busy (+0.05); p99 is judged there")
	f.fs.IntVar(&o.rate, "rate", 0, "run every latency phase at this many requests/s instead of -load × the maximum, so that two servers' latencies compare at one offered load; the p99 targets are then not judged (0: off)")
	f.fs.StringVar(&f.scenarios, "scenarios", "all", "comma-separated scenarios: "+strings.Join(allScenarios, ","))
	f.fs.StringVar(&f.engines, "engines", "sqlite,postgres", "comma-separated storage engines (postgres needs a DSN)")
	f.fs.BoolVar(&o.pin, "pin", true, "pin the server to -server-cpu and the load generator to -client-cpus (taskset)")
	f.fs.StringVar(&o.serverCPU, "server-cpu", "0", "CPU list of the server and the reference subprocesses")
	f.fs.StringVar(&o.clientCPUs, "client-cpus", "1", "CPU list of the load generator (this process)")
	f.fs.StringVar(&o.jsonPath, "json", "", `also write the results as JSON to this file ("-" for stdout)`)
	f.fs.StringVar(&o.serverBin, "server-bin", "", "a built skygate binary (default: go build -build in -repo)")
	f.fs.StringVar(&o.repo, "repo", "", "root of the skygate module the server is built in (default: the one the go command resolves from the current directory: ../.. from tools/bench)")
	f.fs.StringVar(&o.buildPkg, "build", defaultBuildPkg, "package to build the server from, relative to -repo")
	f.fs.StringVar(&o.buildFlags, "build-flags", "", `more go build flags for the server, space-separated (with "-race" the figures mean nothing)`)
	f.fs.StringVar(&o.workDir, "work-dir", "", "parent of the temporary data directories (default: the system temp dir); it decides the disk SQLite writes to")
	f.fs.BoolVar(&o.keep, "keep", false, "keep the temporary directory (server logs, databases)")
	f.fs.IntVar(&o.nice, "nice", 0, "niceness of the server, the references and the load generator; negative (root) keeps other work on a shared machine from skewing the figures")
	f.fs.BoolVar(&o.dbNice, "db-nice", true, "with -nice and a PostgreSQL server on this machine, give its processes (new backends too) the same niceness while the harness runs, and theirs back after: left at 0 beside a harness at -nice, a backend that holds a lock waits for a CPU while the requests behind it wait for it")
	f.fs.IntVar(&o.esimPool, "esim-pool", 250000, "eSIM profiles given to the benchmark account before the esim-order scenario (every order takes one)")
	f.fs.StringVar(&o.catalogURL, "catalog-path", "/v2/catalog/fast-tracks?limit=2&iata=TAS", "request of the catalog scenarios (sent with Accept-Language: ru); the default answers 2.4 KB, about the size of the baseline's body")
	f.fs.StringVar(&o.profileDir, "server-cpu-profiles", "", "write each skygate server's CPU profile (SKYGATE_CPU_PROFILE) into this directory, as ENGINE-N.pprof; merge them with go tool pprof -proto")
	f.fs.StringVar(&o.logLevel, "server-log-level", "info", "SKYGATE_LOG_LEVEL of the server; info (the default, as in production) writes one access-log line per request")
	f.fs.StringVar(&o.generator, "generator", genAuto, "load generators: auto (closed loops of one fixed plain-HTTP request on wrk when it is on PATH, other closed loops on vegeta; open loops on the built-in fixed-rate generator), wrk (the same, wrk required) or vegeta (vegeta for every phase)")
	f.fs.StringVar(&o.hydraBin, "hydra-bin", "", "an Ory Hydra binary for the hydra-token reference (default: $SKYGATE_BENCH_HYDRA_BIN; needs a PostgreSQL DSN)")
	return f
}

const defaultBuildPkg = "./cmd/skygate"

// serviceModule is the module path of the service the harness builds and measures.
const serviceModule = "github.com/skygate/skygate"

func (f *flags) options(getenv func(string) string) (options, error) {
	o := f.o
	var errs []error
	if o.latencyDur == 0 {
		o.latencyDur = o.duration
	}
	if o.duration <= 0 || o.latencyDur < 0 || o.warmup < 0 {
		errs = append(errs, errors.New("-duration must be positive, -latency-duration and -warmup not negative"))
	}
	if o.workers < 1 {
		errs = append(errs, errors.New("-workers must be at least 1"))
	}
	if o.rounds < 1 || o.rounds > 99 {
		errs = append(errs, errors.New("-rounds must be from 1 to 99"))
	}
	if o.pairedSlices < 0 || o.pairedSlices > 100 {
		errs = append(errs, errors.New("-paired-slices must be from 0 to 100"))
	}
	if o.nice < -20 || o.nice > 19 {
		errs = append(errs, errors.New("-nice must be in [-20, 19]"))
	}
	if o.rate < 0 {
		errs = append(errs, errors.New("-rate must not be negative"))
	}
	if o.load <= 0 || o.load > 1 {
		errs = append(errs, errors.New("-load must be in (0, 1]"))
	}
	o.scenarios = allScenarios
	if f.scenarios != "all" {
		o.scenarios = splitList(f.scenarios)
		for _, s := range o.scenarios {
			if !slices.Contains(allScenarios, s) {
				errs = append(errs, fmt.Errorf("unknown scenario %q (known: %s)", s, strings.Join(allScenarios, ", ")))
			}
		}
	}
	o.engines = splitList(f.engines)
	for _, e := range o.engines {
		if e != engineSQLite && e != enginePostgres {
			errs = append(errs, fmt.Errorf("unknown engine %q (sqlite, postgres)", e))
		}
	}
	o.pgDSN = getenv("SKYGATE_BENCH_DATABASE_URL")
	if o.pgDSN == "" {
		o.pgDSN = getenv("SKYGATE_TEST_DATABASE_URL")
	}
	switch o.generator {
	case genAuto:
		o.wrkPath, _ = exec.LookPath("wrk")
	case genWrk:
		var err error
		if o.wrkPath, err = exec.LookPath("wrk"); err != nil {
			errs = append(errs, fmt.Errorf("-generator wrk: %w", err))
		}
	case genVegeta:
	default:
		errs = append(errs, fmt.Errorf("unknown -generator %q (auto, wrk, vegeta)", o.generator))
	}
	if o.hydraBin == "" {
		o.hydraBin = getenv("SKYGATE_BENCH_HYDRA_BIN")
	}
	if o.serverBin == "" {
		var err error
		if o.repo, err = serviceRoot(o.repo); err != nil {
			errs = append(errs, err)
		}
	}
	if o.hydraBin != "" && slices.Contains(o.scenarios, scHydraToken) {
		if _, err := os.Stat(o.hydraBin); err != nil {
			errs = append(errs, fmt.Errorf("-hydra-bin: %w", err))
		}
	}
	return o, errors.Join(errs...)
}

// serviceRoot returns the absolute root directory of the skygate module: dir when given,
// else the one the go command resolves from the current directory (tools/bench's
// replace directive names it; in the service's own tree it is the main module).
func serviceRoot(dir string) (string, error) {
	if dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", err
		}
		if _, err := os.Stat(filepath.Join(abs, "go.mod")); err != nil {
			return "", fmt.Errorf("-repo: %w", err)
		}
		return abs, nil
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", serviceModule).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%w: %s", err, bytes.TrimSpace(ee.Stderr))
		}
		return "", fmt.Errorf("finding %s (give -repo or -server-bin): %w", serviceModule, err)
	}
	return string(bytes.TrimSpace(out)), nil
}

// buildServer runs go build of pkg in the module at repo, writing the binary to out and
// the compiler's output to log.
func buildServer(ctx context.Context, repo, pkg string, flags []string, out string, log io.Writer) error {
	// out may be relative (-work-dir), and the build runs in repo.
	out, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	args := append(append([]string{"build"}, flags...), "-o", out, pkg)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = repo
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s in %s: %w", pkg, repo, err)
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// harness owns the temporary directory, the built server binary and the pinning.
type harness struct {
	opts options
	log  io.Writer
	dir  string
	// runDir holds what one round makes (data directories, logs, the insert loop's
	// file): dir itself, or a directory of each round's own, so every round starts
	// from fresh servers.
	runDir string
	server string // skygate binary
	self   string // this binary, for the reference subprocesses
	// profiles counts the servers started with -server-cpu-profiles.
	profiles int
	pinned   bool
	restore  func()
	unnice   func()
	// dbNice keeps PostgreSQL's processes at -nice (-db-nice); nil when it does not.
	dbNice *dbNicer
}

func newHarness(ctx context.Context, opts options, log io.Writer) (_ *harness, err error) {
	h := &harness{opts: opts, log: log, restore: func() {}, unnice: func() {}}
	if h.dir, err = os.MkdirTemp(opts.workDir, "skygate-bench-"); err != nil {
		return nil, err
	}
	h.runDir = h.dir
	defer func() {
		if err != nil {
			h.close()
		}
	}()
	if h.self, err = os.Executable(); err != nil {
		return nil, err
	}
	h.server = opts.serverBin
	if h.server == "" {
		h.server = filepath.Join(h.dir, "skygate")
		h.logf("building %s in %s", opts.buildPkg, opts.repo)
		if err := buildServer(ctx, opts.repo, opts.buildPkg, strings.Fields(opts.buildFlags), h.server, log); err != nil {
			return nil, err
		}
	}
	if opts.nice != 0 {
		unnice, err := setNice(opts.nice)
		h.unnice = unnice
		if err != nil {
			return nil, err
		}
	}
	if opts.nice != 0 && opts.dbNice && opts.pgDSN != "" {
		pm, err := postmasterOf(ctx, opts.pgDSN)
		if err == nil {
			h.dbNice, err = startDBNice(pm, opts.nice)
		}
		if err != nil {
			h.logf("PostgreSQL keeps its niceness: %v", err)
		} else {
			h.logf("PostgreSQL's processes (children of %d) at niceness %d while the harness runs", pm, opts.nice)
		}
	}
	// Pin after the build: the compiler should have both cores.
	if opts.pin {
		if h.restore, err = pinSelf(opts.clientCPUs); err != nil {
			h.logf("not pinning: %v", err)
			h.restore = func() {}
		} else {
			h.pinned = true
		}
	}
	return h, nil
}

func (h *harness) close() {
	h.restore()
	if h.dbNice != nil {
		h.dbNice.close()
	}
	if h.unnice != nil {
		h.unnice()
	}
	if h.opts.keep {
		h.logf("kept %s", h.dir)
		return
	}
	_ = os.RemoveAll(h.dir)
}

func (h *harness) logf(format string, args ...any) {
	_, _ = fmt.Fprintf(h.log, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

// wants reports whether the scenario was selected.
func (h *harness) wants(s string) bool { return slices.Contains(h.opts.scenarios, s) }

// machine describes where the figures come from.
type machine struct {
	CPUs        int     `json:"cpus"`
	Model       string  `json:"cpu_model"`
	GoVersion   string  `json:"go_version"`
	LoadBefore  float64 `json:"loadavg1_before"`
	LoadAfter   float64 `json:"loadavg1_after"`
	Pinned      bool    `json:"pinned"`
	ServerCPU   string  `json:"server_cpu,omitempty"`
	ClientCPUs  string  `json:"client_cpus,omitempty"`
	Workers     int     `json:"workers"`
	Duration    string  `json:"duration"`
	LatencyLoad float64 `json:"latency_load"`
	// LatencyRate is -rate: every latency phase ran at this rate (0: at LatencyLoad).
	LatencyRate int `json:"latency_rate,omitempty"`
	// Rounds is how many times every scenario ran; the figures are their medians.
	Rounds   int    `json:"rounds"`
	LogLevel string `json:"server_log_level"`
	Nice     int    `json:"nice"`
	// DBNice is the niceness PostgreSQL's processes ran at (-db-nice), when the harness
	// set it.
	DBNice *int `json:"db_nice,omitempty"`
	// Generator ran the closed-loop phases of fixed plain-HTTP requests (wrk or
	// vegeta); each phase records its own.
	Generator  string `json:"generator"`
	WrkVersion string `json:"wrk_version,omitempty"`
	// LatencyGenerator ran the open-loop (latency) phases: fixed-rate, or vegeta with
	// -generator vegeta.
	LatencyGenerator string `json:"latency_generator"`
}

func (h *harness) machine() machine {
	m := machine{
		CPUs: runtime.NumCPU(), Model: cpuModel(), GoVersion: runtime.Version(), LoadBefore: loadAvg(),
		Pinned: h.pinned, Workers: h.opts.workers, Duration: h.opts.duration.String(), LatencyLoad: h.opts.load, LatencyRate: h.opts.rate,
		LogLevel: h.opts.logLevel, Nice: h.opts.nice, Generator: genVegeta, LatencyGenerator: h.openLoopGenerator(),
	}
	if h.opts.wrkPath != "" {
		m.Generator, m.WrkVersion = genWrk, wrkVersion(h.opts.wrkPath)
	}
	if h.pinned {
		m.ServerCPU, m.ClientCPUs = h.opts.serverCPU, h.opts.clientCPUs
	}
	if h.dbNice != nil {
		m.DBNice = &h.dbNice.nice
	}
	return m
}
