package main

import (
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/api"
	"github.com/skygate/skygate/web"
)

// emittedEventTypes reads the event types the code can emit from the root package's
// source: every constant named Event… with a string value.
func emittedEventTypes(tb testing.TB) []string {
	tb.Helper()
	names, err := filepath.Glob("../../*.go")
	if err != nil {
		tb.Fatal(err)
	}
	var types []string
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			tb.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				v := spec.(*ast.ValueSpec)
				for i, name := range v.Names {
					if !strings.HasPrefix(name.Name, "Event") || i >= len(v.Values) {
						continue
					}
					if lit, ok := v.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						s, _ := strconv.Unquote(lit.Value)
						types = append(types, s)
					}
				}
			}
		}
	}
	slices.Sort(types)
	if len(types) < 6 {
		tb.Fatalf("found only the event types %v", types)
	}
	return types
}

// Every event type the code can emit has its entry in the OpenAPI document's
// webhooks (and no other entry is there), the subscribable ones are the filter's
// enum, and each has its section in the event catalog at /docs/events. The
// envelope's type is open: a new type is an additive change.
func TestEventCatalogIsComplete(t *testing.T) {
	t.Parallel()
	doc, err := api.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for typ := range doc.Webhooks {
		documented = append(documented, typ)
	}
	slices.Sort(documented)
	types := emittedEventTypes(t)
	if !slices.Equal(documented, types) {
		t.Errorf("the document's webhooks %v, the code emits %v", documented, types)
	}
	var filter []string
	for _, v := range doc.Components.Schemas["WebhookEventTypes"].Value.Items.Value.Enum {
		filter = append(filter, v.(string))
	}
	if want := skygate.SubscribableEventTypes(); !slices.Equal(filter, want) {
		t.Errorf("WebhookEventTypes enum %v, the subscribable types %v", filter, want)
	}
	// A subscription's filter may name every type but the disabled notice, which is
	// never delivered.
	subscribable := append(skygate.SubscribableEventTypes(), skygate.EventWebhookSubscriptionDisabled)
	slices.Sort(subscribable)
	if !slices.Equal(subscribable, types) {
		t.Errorf("subscribable event types and the disabled notice %v, the code emits %v", subscribable, types)
	}
	docsPage := getDocsPage(t, "/docs/events")
	for _, typ := range types {
		if doc.Webhooks[typ] == nil || doc.Webhooks[typ].Post == nil {
			t.Errorf("%s: not in the document's webhooks", typ)
		}
		if !strings.Contains(docsPage, `<h2 id="`+strings.ReplaceAll(typ, ".", "")+`">`) {
			t.Errorf("%s: no section in /docs/events", typ)
		}
	}
}

// getDocsPage renders a page of the docs.
func getDocsPage(tb testing.TB, path string) string {
	tb.Helper()
	rec := httptest.NewRecorder()
	web.DocsHandler(web.DocsConfig{}).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	if rec.Code != 200 {
		tb.Fatalf("GET %s: %d", path, rec.Code)
	}
	return rec.Body.String()
}

// checkDeliveries validates the deliveries the guide's receiver wrote to dir
// (<webhook-id>.body) against the document's webhooks (validateDelivery). Every event
// type must have been received.
func checkDeliveries(t *testing.T, dir string) {
	t.Helper()
	bodies, err := filepath.Glob(filepath.Join(dir, "*.body"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, f := range bodies {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var event struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(b, &event); err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		seen[event.Type]++
		validateDelivery(t, b)
	}
	// Every type that can be delivered: webhook.subscription.disabled never is.
	for _, typ := range skygate.SubscribableEventTypes() {
		if seen[typ] == 0 {
			t.Errorf("the guide's receiver got no %s event (got %v)", typ, seen)
		}
	}
}
