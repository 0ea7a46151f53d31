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

// TestEveryRouteIsDocumented compares the router's route lists with the OpenAPI
// document, both ways and per listener: the contract names every route the server
// serves, and the server serves every route of the contract. A path whose servers
// name the operator listener (a server not among the document's) is served there; a
// path with no servers of its own, or one of the document's, on the partner listeners.
func TestEveryRouteIsDocumented(t *testing.T) {
	t.Parallel()
	routes, opsRoutes := serverRoutes(t)
	doc, err := api.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	param := regexp.MustCompile(`\{[^}]+\}`)
	norm := func(method, path string) string {
		path = strings.TrimSuffix(path, "{path...}")
		return strings.ToUpper(method) + " " + param.ReplaceAllString(path, "{}")
	}
	partner := map[string]bool{}
	for _, sv := range doc.Servers {
		partner[sv.URL] = true
	}
	var documented, documentedOps []string
	for path, item := range doc.Paths.Map() {
		onPartner, onOps := len(item.Servers) == 0, false
		for _, sv := range item.Servers {
			onPartner = onPartner || partner[sv.URL]
			onOps = onOps || !partner[sv.URL]
		}
		for method := range item.Operations() {
			if onPartner {
				documented = append(documented, norm(method, path))
			}
			if onOps {
				documentedOps = append(documentedOps, norm(method, path))
			}
		}
	}
	for _, listener := range []struct {
		name               string
		routes, documented []string
	}{{"partner listeners", routes, documented}, {"operator listener", opsRoutes, documentedOps}} {
		var served []string
		for _, r := range listener.routes {
			method, path, ok := strings.Cut(r, " ")
			if !ok {
				t.Errorf("route %q has no method", r)
				continue
			}
			served = append(served, norm(method, path))
		}
		for _, r := range served {
			if !slices.Contains(listener.documented, r) && !strings.HasSuffix(r, "/") {
				t.Errorf("%s: served but not in the OpenAPI document: %s", listener.name, r)
			}
		}
		for _, d := range listener.documented {
			if !slices.Contains(served, d) {
				t.Errorf("%s: documented but not served: %s", listener.name, d)
			}
		}
	}
	if len(opsRoutes) == 0 || slices.Contains(routes, "GET /metrics") {
		t.Errorf("operator routes %v; partner routes include /metrics: %v", opsRoutes, slices.Contains(routes, "GET /metrics"))
	}
}

// serverRoutes returns the routes of the partner listeners and of the operator
// listener, from a development app.
func serverRoutes(t *testing.T) (partner, ops []string) {
	t.Helper()
	env := testEnv(t, nil)
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	a, err := newApp(context.Background(), cfg, slog.New(slog.DiscardHandler), httpapi.ClientCertConfig{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.db.Close()
	return a.server.Routes(), a.server.Ops().Routes()
}
