package config_test

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/skygate/skygate/internal/config"
)

// TestVariablesAreWhatLoadReads keeps config.Variables, which `skygate --help`
// prints, and Load in step, for every environment.
func TestVariablesAreWhatLoadReads(t *testing.T) {
	t.Parallel()
	var documented []string
	for _, v := range config.Variables {
		documented = append(documented, v.Name)
	}
	read := map[string]bool{}
	for _, env := range []string{config.EnvDevelopment, config.EnvSandbox, config.EnvProduction} {
		_, _ = config.Load(func(name string) string {
			read[name] = true
			if name == "SKYGATE_ENV" {
				return env
			}
			return ""
		})
	}
	for name := range read {
		if !slices.Contains(documented, name) {
			t.Errorf("Load reads %s, which config.Variables does not document", name)
		}
	}
	for _, name := range documented {
		if !read[name] {
			t.Errorf("config.Variables documents %s, which Load never reads", name)
		}
	}
}

// TestREADMEDocumentsEveryVariable keeps the README's configuration table complete.
func TestREADMEDocumentsEveryVariable(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range config.Variables {
		if !bytes.Contains(readme, []byte("`"+v.Name+"`")) {
			t.Errorf("README.md does not document %s", v.Name)
		}
	}
}

func TestPrintVariables(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	if err := config.PrintVariables(&b, config.Variables); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(b.String(), "\n"); got != len(config.Variables) {
		t.Errorf("PrintVariables wrote %d lines, want %d", got, len(config.Variables))
	}
}
