package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

// droppedModules are modules the binary once carried and must not carry again:
// QR rendering drew with fogleman/gg (and through it freetype and x/image), which
// internal/qr replaced with image/png.
var droppedModules = []string{"github.com/fogleman/gg", "github.com/golang/freetype", "golang.org/x/image"}

// TestBinaryLeavesOutDroppedModules reads the modules linked into this test binary,
// which holds every package the skygate binary holds (and the tests' own), so a module
// missing here is missing from the binary too.
func TestBinaryLeavesOutDroppedModules(t *testing.T) {
	t.Parallel()
	bi, ok := debug.ReadBuildInfo()
	if !ok || len(bi.Deps) == 0 {
		t.Fatal("the test binary carries no module information")
	}
	for _, dep := range bi.Deps {
		for _, dropped := range droppedModules {
			if dep.Path == dropped || strings.HasPrefix(dep.Path, dropped+"/") {
				t.Errorf("the binary links %s %s again (go mod why -m %s says through what)", dep.Path, dep.Version, dep.Path)
			}
		}
	}
}
