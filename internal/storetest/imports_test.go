package storetest

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportsOnlyTheRootPackage checks that the package (its non-test files) imports
// nothing of the module but the root package, so that the contract names no engine:
// engine fixtures live beside each engine (sqlitetest, pgtest), and the packages the
// root package reaches are followed too. The root package's one library, google/uuid
// (its package doc says why), is allowed to it alone.
func TestImportsOnlyTheRootPackage(t *testing.T) {
	t.Parallel()
	const module = "github.com/skygate/skygate"
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var visit func(path string)
	visit = func(path string) {
		if seen[path] {
			return
		}
		seen[path] = true
		dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(path, module), "/")))
		pkg, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatalf("import %s: %v", path, err)
		}
		for _, imp := range pkg.Imports {
			switch {
			case !strings.Contains(strings.SplitN(imp, "/", 2)[0], "."):
				// the standard library
			case imp == module:
				visit(imp)
			case path == module && imp == "github.com/google/uuid":
				// NewID's generator; it imports only the standard library.
			default:
				t.Errorf("%s imports %s; the store suite's package may import only %s and the standard library", path, imp, module)
			}
		}
	}
	visit(module + "/internal/storetest")
}
