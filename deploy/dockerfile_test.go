package deploy

import (
	"bufio"
	"bytes"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
)

// instruction is one Dockerfile instruction: its keyword in upper case and its
// arguments, continuation lines joined.
type instruction struct {
	cmd, args string
}

// dockerfile returns the instructions of the repository's Dockerfile: the global ones
// (before the first FROM) and its stages (each starts with FROM).
func dockerfile(t *testing.T) (global []instruction, stages [][]instruction) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(readFile(t, "../Dockerfile")))
	line := ""
	for sc.Scan() {
		s := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(s, "#") || s == "" && line == "" {
			continue
		}
		if more, ok := strings.CutSuffix(s, `\`); ok {
			line += more + " "
			continue
		}
		line += s
		cmd, args, _ := strings.Cut(line, " ")
		line = ""
		in := instruction{strings.ToUpper(cmd), strings.TrimSpace(args)}
		if in.cmd == "FROM" {
			stages = append(stages, nil)
		}
		if len(stages) > 0 {
			stages[len(stages)-1] = append(stages[len(stages)-1], in)
		} else {
			global = append(global, in)
		}
	}
	if len(stages) < 2 {
		t.Fatalf("the Dockerfile has %d stages, want a build stage and the image", len(stages))
	}
	return global, stages
}

// imageEnv returns the environment the image's ENV instructions set (KEY=VALUE
// pairs, unquoted).
func imageEnv(t *testing.T) map[string]string {
	t.Helper()
	_, stages := dockerfile(t)
	env := map[string]string{}
	for _, in := range stages[len(stages)-1] {
		if in.cmd != "ENV" {
			continue
		}
		for _, kv := range strings.Fields(in.args) {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				t.Fatalf("ENV %s: want KEY=VALUE pairs", in.args)
			}
			env[k] = v
		}
	}
	return env
}

// TestDockerfile checks the image's build: the Go release of go.mod, the release build
// of scripts/build, and an image of that binary alone on distroless as nonroot,
// exposing the listeners its environment sets.
func TestDockerfile(t *testing.T) {
	global, stages := dockerfile(t)
	mod, err := modfile.ParseLax("go.mod", readFile(t, "../go.mod"), nil)
	if err != nil {
		t.Fatal(err)
	}
	build, image := stages[0], stages[len(stages)-1]
	var goVersion string
	var runsBuild bool
	for _, in := range global {
		if v, ok := strings.CutPrefix(in.args, "GO_VERSION="); in.cmd == "ARG" && ok {
			goVersion = v
		}
	}
	if !strings.HasPrefix(build[0].args, "golang:${GO_VERSION} ") {
		t.Errorf("the build stage is FROM %s, want the golang image of GO_VERSION", build[0].args)
	}
	for _, in := range build {
		runsBuild = runsBuild || in.cmd == "RUN" && strings.Contains(in.args, "scripts/build ")
	}
	if goVersion != mod.Go.Version {
		t.Errorf("the build stage's Go %q is not go.mod's %q", goVersion, mod.Go.Version)
	}
	if !runsBuild {
		t.Error("the build stage does not run scripts/build, the build TestCompose runs")
	}

	want := map[string]string{
		"FROM":       "gcr.io/distroless/static-debian12:nonroot",
		"USER":       "nonroot:nonroot",
		"ENTRYPOINT": `["/usr/local/bin/skygate"]`,
		"CMD":        `["serve"]`,
	}
	var exposed []int
	for _, in := range image {
		switch in.cmd {
		case "FROM", "USER", "ENTRYPOINT", "CMD":
			if in.args != want[in.cmd] {
				t.Errorf("image: %s %s, want %s", in.cmd, in.args, want[in.cmd])
			}
			delete(want, in.cmd)
		case "EXPOSE":
			for _, p := range strings.Fields(in.args) {
				n, err := strconv.Atoi(p)
				if err != nil {
					t.Fatalf("EXPOSE %s: %v", p, err)
				}
				exposed = append(exposed, n)
			}
		case "RUN":
			t.Errorf("image: RUN %s: the image has no shell", in.args)
		}
	}
	if len(want) > 0 {
		t.Errorf("image: missing %v", want)
	}
	env := imageEnv(t)
	var listeners []int
	for _, name := range []string{"SKYGATE_HTTP_ADDR", "SKYGATE_MTLS_ADDR", "SKYGATE_OPS_ADDR"} {
		listeners = append(listeners, portOf(env[name]))
	}
	if !slices.Equal(exposed, listeners) {
		t.Errorf("EXPOSE %v, want the listeners' ports %v", exposed, listeners)
	}
	for name := range env {
		if !knownVariable(name) {
			t.Errorf("ENV %s is no variable of internal/config (Variables)", name)
		}
	}
}
