package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
)

// version and commit are stamped at build time, as the release build does:
//
//	go build -ldflags "-X main.version=$VERSION -X main.commit=$COMMIT" ./cmd/skygate
//
// Unstamped, version is "dev" and the commit is the revision the go command recorded
// when it built from a checkout (vcs.revision), else "unknown".
var (
	version = "dev"
	commit  = ""
)

// build is what the binary knows of its own build: `skygate version` prints it and
// /metrics exports it as skygate_build_info.
type build struct {
	version, commit, goVersion string
}

// thisBuild returns the running binary's build.
func thisBuild() build {
	bi, _ := debug.ReadBuildInfo()
	return buildOf(version, commit, bi)
}

// buildOf is the build stamped with version and commit, the commit falling back to the
// revision in bi (nil when the binary has no build information).
func buildOf(version, commit string, bi *debug.BuildInfo) build {
	b := build{version: version, commit: commit, goVersion: runtime.Version()}
	if b.commit == "" && bi != nil {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				b.commit = s.Value
			}
		}
	}
	if b.commit == "" {
		b.commit = "unknown"
	}
	return b
}

// printVersion writes the version line: "skygate VERSION (commit COMMIT, GOVERSION)".
func printVersion(w io.Writer) error {
	b := thisBuild()
	_, err := fmt.Fprintf(w, "skygate %s (commit %s, %s)\n", b.version, b.commit, b.goVersion)
	return err
}

// buildInfo exports b as skygate_build_info, 1 with the build as labels, as
// Prometheus's own prometheus_build_info does: joined on its labels, it tells which
// build each replica runs.
func buildInfo(b build) prometheus.Collector {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "skygate_build_info",
		Help:        "1, labelled with the version, the commit (revision) and the Go release of the running build.",
		ConstLabels: prometheus.Labels{"version": b.version, "revision": b.commit, "goversion": b.goVersion},
	})
	g.Set(1)
	return g
}
