package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain lets the test binary stand in for skygate-bench when the harness starts
// its reference subprocesses (os.Executable is the test binary here).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "baseline-server", "insert-loop", "sign-loop":
			if err := run(context.Background(), os.Args, os.Getenv, os.Stdout, os.Stderr); err != nil {
				os.Stderr.WriteString(err.Error() + "\n")
				os.Exit(1)
			}
			os.Exit(0)
		}
	}
	os.Exit(m.Run())
}

// TestHarnessSmoke runs the baseline, the reference loops and the catalog scenarios
// with tiny loads, once per load generator, and checks only that figures come out:
// timing belongs in the harness's output, never in a test's verdict. The server is
// built once, as the harness builds it, without the race detector; the two runs share
// the machine, which only their figures notice.
func TestHarnessSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the server")
	}
	repo, err := serviceRoot("")
	if err != nil {
		t.Fatal(err)
	}
	server := filepath.Join(t.TempDir(), "skygate")
	var log bytes.Buffer
	if err := buildServer(t.Context(), repo, defaultBuildPkg, nil, server, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	for _, gen := range []string{genVegeta, genWrk} {
		t.Run(gen, func(t *testing.T) {
			t.Parallel()
			if _, err := exec.LookPath("wrk"); err != nil && gen == genWrk {
				t.Skip("wrk is not on PATH (apt-get install wrk): the wrk generator is not tested")
			}
			smoke(t, gen, server)
		})
	}
	for _, sc := range []string{scTokenPrivateKeyJWT, scIntrospect, scEventsRead} {
		t.Run(sc, func(t *testing.T) {
			t.Parallel()
			r := smokeScenario(t, server, sc)
			if r.Skipped != "" || r.RPS <= 0 || r.Phases == nil || r.Phases.Max.OK == 0 {
				t.Fatalf("%s: no figures: %+v", sc, r)
			}
		})
	}
	t.Run(scWebhooks, func(t *testing.T) {
		t.Parallel()
		r := smokeScenario(t, server, scWebhooks)
		if r.Skipped != "" || r.RPS <= 0 || r.Deliveries == nil || r.Deliveries.Events == 0 {
			t.Fatalf("no figures: %+v", r)
		}
		if r.Deliveries.OutOfOrder != 0 {
			t.Fatalf("%d events of a booking arrived out of order: %+v", r.Deliveries.OutOfOrder, r.Deliveries)
		}
	})
}

// smokeScenario runs one engine scenario on SQLite with a tiny load and returns its
// row.
func smokeScenario(t *testing.T, server, scenario string) row {
	out := filepath.Join(t.TempDir(), "bench.json")
	var stdout, stderr bytes.Buffer
	args := []string{"skygate-bench", "-duration", "200ms", "-latency-duration", "100ms", "-warmup", "0", "-workers", "4",
		"-scenarios", scenario, "-engines", "sqlite", "-pin=false", "-generator", genVegeta, "-rounds", "1",
		"-work-dir", t.TempDir(), "-json", out, "-server-bin", server}
	if err := run(t.Context(), args, func(string) string { return "" }, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Rows {
		if r.Scenario == scenario && r.Engine == engineSQLite {
			return r
		}
	}
	t.Fatalf("no %s row in %s", scenario, b)
	return row{}
}

func smoke(t *testing.T, gen, server string) {
	out := filepath.Join(t.TempDir(), "bench.json")
	var stdout, stderr bytes.Buffer
	// The vegeta run takes two rounds: every round must start from fresh servers.
	rounds := map[string]string{genVegeta: "2", genWrk: "1"}[gen]
	// Phases as short as each generator allows (wrk counts whole seconds).
	args := []string{"skygate-bench", "-duration", "200ms", "-latency-duration", "100ms", "-warmup", "0", "-workers", "4",
		"-scenarios", "baseline,es256-loop,insert-loop,hydra-token,baseline-req,baseline-304,catalog-200,catalog-304", "-engines", "sqlite", "-pin=false",
		"-paired-slices", "2",
		"-generator", gen, "-rounds", rounds, "-work-dir", t.TempDir(), "-json", out, "-server-bin", server}
	if err := run(t.Context(), args, func(string) string { return "" }, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string]row{}
	for _, r := range rep.Rows {
		got[r.Scenario] = r
	}
	for _, name := range []string{scBaseline, scSignLoop, scInsertLoop, scBaselineReq, scBaseline304, scCatalog200, scCatalog304} {
		r, ok := got[name]
		if !ok || r.Skipped != "" || r.RPS <= 0 {
			t.Errorf("%s: no figures: %+v", name, r)
		}
	}
	if r := got[scCatalog200]; r.Phases == nil || r.Phases.Max.OK == 0 || r.VsBaseline <= 0 || len(r.Checks) == 0 {
		t.Errorf("catalog-200 lacks phases, ratio or checks: %+v", r)
	}
	// Closed loops on the chosen generator, open loops on vegeta when it was chosen,
	// else on the fixed-rate generator.
	openGen := map[string]string{genVegeta: genVegeta, genWrk: genFixedRate}[gen]
	for _, name := range []string{scBaseline, scBaselineReq, scCatalog200, scCatalog304} {
		if r := got[name]; r.Phases == nil || r.Phases.Max.Generator != gen || r.Phases.Latency.Generator != openGen {
			t.Errorf("%s: generators of the phases: %+v", name, r.Phases)
		}
	}
	// baseline-304 answers 304 (its load counts nothing else as success) and both it and
	// catalog-304 say how they compare.
	if r := got[scBaseline304]; r.Phases == nil || r.Phases.Max.OK != r.Phases.Max.Requests ||
		!strings.Contains(r.Note, "× baseline-req: net/http's own 304") {
		t.Errorf("baseline-304: %+v", r)
	}
	if r := got[scCatalog304]; !strings.Contains(r.Note, "× baseline-304 (not interleaved)") {
		t.Errorf("catalog-304 does not compare with baseline-304: %q", r.Note)
	}
	if c := got[scCatalog200].Checks; len(c) == 0 || c[0].Target != "≥0.70× baseline-req, interleaved" {
		t.Errorf("catalog-200's ratio check is not against baseline-req: %+v", c)
	}
	// The catalog's ratios come from slices interleaved with the bare server's.
	for _, name := range []string{scCatalog200, scCatalog304} {
		r := got[name]
		if p := r.Paired; p == nil || p.Slices != 2 || p.Reference != scBaselineReq || p.RefRPS <= 0 || p.RPS <= 0 ||
			p.CPUPerReq <= 0 || p.Ratio != p.RPS/p.RefRPS || len(r.Checks) == 0 || r.Checks[0].Value != p.Ratio {
			t.Errorf("%s: interleaved figures %+v, checks %+v", name, p, r.Checks)
		}
	}
	if rep.Machine.LatencyGenerator != openGen {
		t.Errorf("machine.latency_generator = %q, want %q", rep.Machine.LatencyGenerator, openGen)
	}
	if rep.Machine.Generator != gen {
		t.Errorf("machine.generator = %q, want %q", rep.Machine.Generator, gen)
	}
	if want := map[string]int{genVegeta: 2, genWrk: 1}[gen]; rep.Machine.Rounds != want ||
		(want > 1 && len(got[scCatalog200].Rounds) != want) {
		t.Errorf("rounds: machine %d, catalog-200 %+v; want %d", rep.Machine.Rounds, got[scCatalog200].Rounds, want)
	}
	// No -hydra-bin: a row that says why.
	if r := got[scHydraToken]; r.Skipped == "" {
		t.Errorf("hydra-token without a binary: %+v", r)
	}
	if !bytes.Contains(stdout.Bytes(), []byte("catalog-304")) {
		t.Errorf("the table does not list catalog-304:\n%s", stdout.String())
	}
}

func TestOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args    []string
		wantErr bool
	}{
		{[]string{}, false},
		{[]string{"-scenarios", "token,catalog-200", "-engines", "sqlite"}, false},
		{[]string{"-scenarios", "nope"}, true},
		{[]string{"-engines", "mysql"}, true},
		{[]string{"-load", "1.5"}, true},
		{[]string{"-workers", "0"}, true},
		{[]string{"-nice", "-30"}, true},
		{[]string{"-generator", "vegeta"}, false},
		{[]string{"-generator", "auto"}, false},
		{[]string{"-generator", "ab"}, true},
		{[]string{"-scenarios", "hydra-token", "-hydra-bin", "/nonexistent/hydra"}, true},
		{[]string{"-rounds", "3"}, false},
		{[]string{"-rounds", "0"}, true},
		{[]string{"-paired-slices", "0"}, false},
		{[]string{"-paired-slices", "-1"}, true},
		{[]string{"-rate", "1500"}, false},
		{[]string{"-rate", "-1"}, true},
	}
	for _, tt := range tests {
		f := newFlags(&bytes.Buffer{})
		if err := f.fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		_, err := f.options(func(string) string { return "" })
		if (err != nil) != tt.wantErr {
			t.Errorf("%v: err = %v, want error %v", tt.args, err, tt.wantErr)
		}
	}
}

// TestServiceRoot: the harness finds the service module it builds from its own tree
// (tools/bench's replace directive), and -repo must name a module's root.
func TestServiceRoot(t *testing.T) {
	t.Parallel()
	root, err := serviceRoot("")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil || !bytes.HasPrefix(b, []byte("module "+serviceModule+"\n")) {
		t.Errorf("serviceRoot() = %s, whose go.mod starts %.40q (%v)", root, b, err)
	}
	if got, err := serviceRoot("../.."); err != nil || got != root {
		t.Errorf("serviceRoot(../..) = %q, %v; want %q", got, err, root)
	}
	if _, err := serviceRoot(t.TempDir()); err == nil {
		t.Error("serviceRoot accepted a directory without go.mod")
	}
}

func TestCountCPUs(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int{"1": 1, "0-1": 2, "1,3": 2, "0-3,8": 5} {
		if got, err := countCPUs(in); err != nil || got != want {
			t.Errorf("countCPUs(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	if _, err := countCPUs("x"); err == nil {
		t.Error("countCPUs(x) did not fail")
	}
}

func TestProcCPU(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	if _, err := procCPU(os.Getpid()); err != nil {
		t.Fatal(err)
	}
}

// TestEvaluateHydra checks the token endpoint's "≥10× hydra-token" target, which only
// applies when Hydra was measured, and that Hydra, a reference, gets no latency target.
func TestEvaluateHydra(t *testing.T) {
	t.Parallel()
	phases := &measured{Max: phase{Requests: 100, OK: 100}}
	hydra := row{Scenario: scHydraToken, Engine: enginePostgres, Kind: "http", RPS: 100, LatencyRate: 70, P99: 900, Phases: phases}
	tests := []struct {
		name      string
		hydra     *row
		tokenRPS  float64
		wantCheck bool
		wantPass  bool
	}{
		{"ten times", &hydra, 1000, true, true},
		{"more", &hydra, 12000, true, true},
		{"less", &hydra, 999, true, false},
		{"no hydra row", nil, 12000, false, false},
		{"hydra skipped", &row{Scenario: scHydraToken, Engine: enginePostgres, Skipped: "no binary"}, 12000, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep := &report{}
			if tt.hydra != nil {
				rep.add(*tt.hydra)
			}
			rep.add(row{Scenario: scToken, Engine: engineSQLite, Kind: "http", RPS: tt.tokenRPS, Phases: phases})
			rep.add(row{Scenario: scToken, Engine: enginePostgres, Kind: "http", RPS: tt.tokenRPS, Phases: phases})
			rep.evaluate()
			for _, r := range rep.Rows {
				if r.Scenario == scHydraToken {
					for _, c := range r.Checks {
						if strings.HasPrefix(c.Target, "p99") {
							t.Errorf("hydra-token has a latency target: %+v", c)
						}
					}
					continue
				}
				var found *check
				for i, c := range r.Checks {
					if c.Target == "≥10× hydra-token" {
						found = &r.Checks[i]
					}
				}
				if (found != nil) != tt.wantCheck {
					t.Fatalf("%s/%s: checks %+v, want the hydra check %v", r.Scenario, r.Engine, r.Checks, tt.wantCheck)
				}
				if found != nil && (found.Pass != tt.wantPass || found.Value != tt.tokenRPS/tt.hydra.RPS) {
					t.Errorf("%s/%s: %+v, want pass %v", r.Scenario, r.Engine, *found, tt.wantPass)
				}
			}
		})
	}
}

// TestMergeRounds: the merged report holds the median of every figure and check value,
// each ratio taken within its own round, and judges the checks again; one slow round
// does not decide the outcome.
func TestMergeRounds(t *testing.T) {
	t.Parallel()
	phases := &measured{Max: phase{Requests: 100, OK: 100}}
	round := func(baseRPS, baseUS, catRPS, catUS float64) *report {
		rep := &report{}
		rep.add(row{Scenario: scBaseline, Kind: "http", RPS: baseRPS, CPUPerReq: baseUS, Phases: phases})
		rep.add(row{Scenario: scCatalog200, Engine: engineSQLite, Kind: "http", RPS: catRPS, CPUPerReq: catUS, Phases: phases})
		rep.add(row{Scenario: scBooking, Engine: engineSQLite, Skipped: "not asked"})
		rep.evaluate()
		return rep
	}
	// The second round's catalog fell in a slow period: alone it would fail 0.70×.
	merged, err := mergeRounds([]*report{round(100, 20, 75, 27), round(100, 20, 40, 50), round(90, 22, 72, 28)})
	if err != nil {
		t.Fatal(err)
	}
	if merged.Machine.Rounds != 3 || len(merged.Rows) != 3 {
		t.Fatalf("rounds %d, rows %d", merged.Machine.Rounds, len(merged.Rows))
	}
	cat := merged.Rows[1]
	if cat.RPS != 72 || cat.CPUPerReq != 28 || cat.VsBaseline != 0.75 || len(cat.Rounds) != 3 {
		t.Errorf("catalog median: %+v", cat)
	}
	for _, c := range cat.Checks {
		switch c.Target {
		case "≥0.70× baseline":
			if c.Value != 0.75 || !c.Pass {
				t.Errorf("ratio check %+v, want the median ratio 0.75 and a pass", c)
			}
		case "≤25 µs CPU/req":
			if c.Value != 28 || c.Pass {
				t.Errorf("CPU check %+v, want 28 and a fail", c)
			}
		}
	}
	if merged.Rows[2].Skipped == "" {
		t.Errorf("a skipped row stays skipped: %+v", merged.Rows[2])
	}
	if _, err := mergeRounds([]*report{round(1, 1, 1, 1), {}}); err == nil {
		t.Error("rounds with other rows merged")
	}
}

// TestNextLoadRate: after an open loop that kept the server's core busier than the
// load (plus the tolerance), the next runs at the rate lowered in proportion; one at
// most that busy, or without figures, ends the search.
func TestNextLoadRate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		ph       phase
		wantRate int
		wantOK   bool
	}{
		{"core 98 % busy", phase{Rate: 41000, OK: 1, ServerUtil: 0.98}, 29286, true},
		{"within the tolerance", phase{Rate: 30000, OK: 1, ServerUtil: 0.75}, 0, false},
		{"below the load", phase{Rate: 3000, OK: 1, ServerUtil: 0.45}, 0, false},
		{"no answers", phase{Rate: 3000, ServerUtil: 0.9}, 0, false},
		{"no rate", phase{OK: 1, ServerUtil: 0.9}, 0, false},
		{"already one request a second", phase{Rate: 1, OK: 1, ServerUtil: 0.9}, 0, false},
	}
	for _, tt := range tests {
		rate, ok := nextLoadRate(0.7, tt.ph)
		if rate != tt.wantRate || ok != tt.wantOK {
			t.Errorf("%s: nextLoadRate = %d, %v, want %d, %v", tt.name, rate, ok, tt.wantRate, tt.wantOK)
		}
	}
}

// TestJudgedAtLoad: a row's latency figures and its p99 check come from the last
// calibration phase when lower rates ran, with the latency phase at the maximum's
// share kept as a reading; without calibration, from the latency phase itself. Rounds
// merge the reading to the median of each figure, and to nothing when a round had none.
func TestJudgedAtLoad(t *testing.T) {
	t.Parallel()
	top := phase{RPS: 40000, ServerUtil: 0.99, CPUPerReq: 24, OK: 200000, Requests: 200000}
	lat := phase{Rate: 28000, ServerUtil: 0.98, CPUPerReq: 35, P50: 90, P99: 300, OK: 1000, Requests: 1000}
	cal := phase{Rate: 20000, ServerUtil: 0.72, CPUPerReq: 36, P50: 0.1, P99: 4, OK: 1000, Requests: 1000}

	r := httpRow(scCatalog200, engineSQLite, measured{Max: top, Latency: lat, Calibration: []phase{cal}})
	if r.P99 != 4 || r.LatencyRate != 20000 || r.LatencyUtil != 0.72 {
		t.Errorf("judged figures %v ms at %d req/s (%v busy), want the calibration phase's", r.P99, r.LatencyRate, r.LatencyUtil)
	}
	if r.AtMaxShare == nil || r.AtMaxShare.P99 != 300 || r.AtMaxShare.Rate != 28000 {
		t.Errorf("reading %+v, want the latency phase's", r.AtMaxShare)
	}
	rep := &report{Machine: machine{LatencyLoad: 0.7}}
	rep.add(r)
	rep.evaluate()
	var found bool
	for _, c := range rep.Rows[0].Checks {
		if strings.HasPrefix(c.Target, "p99<10 ms at 70% load") {
			found = true
			if !c.Pass || c.Value != 4 {
				t.Errorf("check %+v, want a pass at 4 ms", c)
			}
		}
	}
	if !found {
		t.Errorf("no p99 check in %+v", rep.Rows[0].Checks)
	}

	plain := httpRow(scBooking, engineSQLite, measured{Max: top, Latency: cal})
	if plain.P99 != 4 || plain.AtMaxShare != nil {
		t.Errorf("without calibration: p99 %v, reading %+v; want the latency phase and no reading", plain.P99, plain.AtMaxShare)
	}

	// A calibration phase's errors fail the row like the others'.
	bad := cal
	bad.OK = 900
	rep = &report{Machine: machine{LatencyLoad: 0.7}}
	rep.add(httpRow(scBooking, engineSQLite, measured{Max: top, Latency: lat, Calibration: []phase{bad}}))
	rep.evaluate()
	for _, c := range rep.Rows[0].Checks {
		if c.Target == "≤1% errors" && c.Pass {
			t.Errorf("10 %% errors in the calibration phase passed: %+v", c)
		}
	}

	at := func(p99 float64) row {
		return row{Scenario: scBooking, Engine: engineSQLite, AtMaxShare: &loadFigures{Rate: 1000, ServerUtil: 0.9, P50: 1, P99: p99}}
	}
	if got := mergeAtMaxShare([]row{at(30), at(5), at(8)}); got == nil || got.P99 != 8 || got.Rate != 1000 {
		t.Errorf("merged %+v, want the median p99 8", got)
	}
	if got := mergeAtMaxShare([]row{at(30), {Scenario: scBooking}}); got != nil {
		t.Errorf("a round without the reading merged into %+v", got)
	}
}

// TestInsertLoopTwice: the insert loop starts from an empty table even on a file an
// earlier round left (its keys would otherwise collide, as they did with -rounds 2).
func TestInsertLoopTwice(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "insert-loop.db")
	for round := range 2 {
		var out bytes.Buffer
		if err := insertLoop(t.Context(), []string{"-path", path, "-duration", "50ms"}, &out); err != nil {
			t.Fatalf("round %d: %v", round+1, err)
		}
		var res loopResult
		if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.Ops == 0 {
			t.Fatalf("round %d printed %q", round+1, out.String())
		}
	}
}

// TestHTTPRowNotes: the row says when the latency phase loaded the server well beyond
// its share of the maximum, at which rate the latency was judged instead, and when the
// load generator was the bottleneck.
func TestHTTPRowNotes(t *testing.T) {
	t.Parallel()
	peak := phase{RPS: 10000, OK: 50000, Requests: 50000, ServerUtil: 1, CPUPerReq: 100}
	tests := []struct {
		name        string
		latency     phase
		calibration []phase
		want        []string
		notWant     []string
	}{
		{"as expected", phase{Rate: 7000, ServerUtil: 0.72, CPUPerReq: 103}, nil, nil, []string{"busy", "judged", "latency phase"}},
		{"costlier per request", phase{Rate: 7000, ServerUtil: 0.84, CPUPerReq: 120}, nil, []string{"at 7000 req/s the server's core was 84% busy (120 µs/req against 100 at max)"}, nil},
		{"calibrated", phase{Rate: 7000, ServerUtil: 0.98, CPUPerReq: 140}, []phase{{Rate: 5000, ServerUtil: 0.74, CPUPerReq: 148}},
			[]string{"core was 98% busy", "latency judged at 5000 req/s (1 lower rate(s) tried), server CPU 74%"}, []string{"stayed"}},
		{"calibration did not lower the load", phase{Rate: 7000, ServerUtil: 0.8, CPUPerReq: 115},
			[]phase{{Rate: 6000, ServerUtil: 0.8}, {Rate: 5000, ServerUtil: 0.79}, {Rate: 4000, ServerUtil: 0.81}, {Rate: 3500, ServerUtil: 0.78}},
			[]string{"latency judged at 3500 req/s (4 lower rate(s) tried)", "the core stayed 78–80% busy down to 35% of the maximum rate"}, nil},
		{"generator busy", phase{Rate: 7000, ServerUtil: 0.7, ClientUtil: 0.9}, nil, []string{"latency phase: client CPU 90%"}, []string{"busy ("}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := httpRow(scToken, engineSQLite, measured{Max: peak, Latency: tt.latency, Calibration: tt.calibration})
			for _, w := range tt.want {
				if !strings.Contains(r.Note, w) {
					t.Errorf("note %q lacks %q", r.Note, w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(r.Note, w) {
					t.Errorf("note %q has %q", r.Note, w)
				}
			}
		})
	}
}

// TestErrorCheck: a row fails "≤1% errors" when either its max phase or its latency
// phase answered more than 1 % unexpectedly; a latency phase that did not run counts
// for nothing.
func TestErrorCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		max, lat phase
		want     bool
	}{
		{"clean", phase{Requests: 1000, OK: 1000}, phase{Requests: 700, OK: 700}, true},
		{"max phase errors", phase{Requests: 1000, OK: 900}, phase{Requests: 700, OK: 700}, false},
		{"latency phase errors", phase{Requests: 1000, OK: 1000}, phase{Requests: 700, OK: 420}, false},
		{"no latency phase", phase{Requests: 1000, OK: 1000}, phase{}, true},
	}
	for _, tt := range tests {
		rep := &report{}
		rep.add(row{Scenario: scESIMOrder, Engine: engineSQLite, Kind: "http", RPS: 1, Phases: &measured{Max: tt.max, Latency: tt.lat}})
		rep.evaluate()
		var found bool
		for _, c := range rep.Rows[0].Checks {
			if c.Target == "≤1% errors" {
				found = true
				if c.Pass != tt.want {
					t.Errorf("%s: %+v, want pass=%v", tt.name, c, tt.want)
				}
			}
		}
		if !found {
			t.Errorf("%s: no error check in %+v", tt.name, rep.Rows[0].Checks)
		}
	}
}

// TestFixedRateNotJudged: a latency phase at -rate ran at the operator's rate, not at
// the target's load, so the p99 target is judged only without -rate.
func TestFixedRateNotJudged(t *testing.T) {
	t.Parallel()
	for _, rate := range []int{0, 1500} {
		rep := &report{}
		rep.Machine.LatencyRate = rate
		rep.add(row{Scenario: scBooking, Engine: engineSQLite, Kind: "http", RPS: 2000, LatencyRate: 1500, P99: 30,
			Phases: &measured{Max: phase{Requests: 1000, OK: 1000}}})
		rep.evaluate()
		judged := false
		for _, c := range rep.Rows[0].Checks {
			judged = judged || strings.HasPrefix(c.Target, "p99")
		}
		if judged != (rate == 0) {
			t.Errorf("-rate %d: p99 judged = %v, want %v", rate, judged, rate == 0)
		}
	}
}
