package main

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/skygate/skygate/api"
)

// TestEveryRouteIsDocumented compares the router's route list with the OpenAPI
// document, both ways: the contract names every route the server serves, and the
// server serves every route of the contract.
func TestEveryRouteIsDocumented(t *testing.T) {
	t.Parallel()
	routes := routeList(t)
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
	for _, r := range routes {
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
