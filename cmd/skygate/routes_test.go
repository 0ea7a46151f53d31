package main

import (
	"context"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/skygate/skygate/api"
	"github.com/skygate/skygate/internal/config"
	"github.com/skygate/skygate/internal/httpapi"
)

// TestEveryRouteIsDocumented compares the router's route list with the OpenAPI
// document, both ways: the contract names every route the server serves, and the
// server serves every route of the contract.
func TestEveryRouteIsDocumented(t *testing.T) {
	t.Parallel()
	env := testEnv(t, nil)
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	a, err := newApp(context.Background(), cfg, slog.New(slog.DiscardHandler), httpapi.ClientCertConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.db.Close()
	doc, err := api.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	param := regexp.MustCompile(`\{[^}]+\}`)
	norm := func(method, path string) string {
		path = strings.TrimSuffix(path, "{path...}")
		return strings.ToUpper(method) + " " + param.ReplaceAllString(path, "{}")
	}
	var documented []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented = append(documented, norm(method, path))
		}
	}
	var served []string
	for _, r := range a.server.Routes() {
		method, path, ok := strings.Cut(r, " ")
		if !ok {
			t.Errorf("route %q has no method", r)
			continue
		}
		served = append(served, norm(method, path))
	}
	for _, r := range served {
		if !slices.Contains(documented, r) && !strings.HasSuffix(r, "/") {
			t.Errorf("served but not in the OpenAPI document: %s", r)
		}
	}
	for _, d := range documented {
		if !slices.Contains(served, d) {
			t.Errorf("documented but not served: %s", d)
		}
	}
}
