package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate/internal/catalog"
)

// TestCatalogImportCommand runs `skygate catalog import` next to a running server: a
// valid document becomes the catalog the server answers with (new name, new ETag)
// within its refresh interval; an invalid one is refused with the fields at fault and
// changes nothing. The server's refresh interval is shortened to keep the wait short.
func TestCatalogImportCommand(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, map[string]string{"SKYGATE_CATALOG_REFRESH": "100ms"}))
	tok := s.mustToken(s.mustBootstrap("importer", catalogScopes), "")
	first := mustPage(t, mustGet200(t, s, "/v2/catalog/lounges?iata=TAS&limit=1", tok, nil))
	if len(first.Data) != 1 {
		t.Fatalf("no TAS lounge: %+v", first)
	}
	loungeID, oldName := first.Data[0].ID, first.Data[0].Name
	path := "/v2/catalog/lounges/" + loungeID
	before, _ := s.get(path, tok, nil)

	// The seed with that lounge renamed in every language.
	var doc map[string]any
	if err := json.Unmarshal(catalog.Seed(), &doc); err != nil {
		t.Fatal(err)
	}
	var renamed map[string]any
	for _, l := range doc["lounges"].([]any) {
		if m := l.(map[string]any); m["id"] == loungeID {
			renamed = m
		}
	}
	if renamed == nil {
		t.Fatalf("lounge %s is not in the seed", loungeID)
	}
	renamed["name"] = map[string]any{"en": "Renamed Lounge", "ru": "Новый зал", "uz": "Yangi zal", "kk": "Жаңа зал"}
	valid := mustWriteJSON(t, doc)
	delete(renamed["name"].(map[string]any), "kk")
	invalid := mustWriteJSON(t, doc)

	importFile := func(file string) (string, error) {
		var out bytes.Buffer
		err := run(t.Context(), []string{"skygate", "catalog", "import", file}, func(k string) string { return s.env[k] }, &out, io.Discard)
		return out.String(), err
	}

	// Invalid: refused, the field named, the served catalog untouched.
	out, err := importFile(invalid)
	if err == nil || !strings.Contains(err.Error(), "lounges[") || !strings.Contains(err.Error(), "kk") || out != "" {
		t.Fatalf("invalid import: err %v, stdout %q", err, out)
	}
	if _, err := importFile(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("import of a missing file succeeded")
	}

	// Valid: a summary on stdout, then the server serves it.
	out, err = importFile(valid)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	var sum catalog.Summary
	if err := json.Unmarshal([]byte(out), &sum); err != nil || sum.Version < 2 || sum.Lounges == 0 || sum.Hubs < 12 {
		t.Fatalf("summary %q: %v", out, err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		resp, body := s.get(path, tok, nil)
		var item struct{ Name string }
		if err := json.Unmarshal(body, &item); err != nil {
			t.Fatalf("%v: %.300s", err, body)
		}
		if item.Name == "Renamed Lounge" {
			if resp.Header.Get("ETag") == before.Header.Get("ETag") {
				t.Error("the ETag did not change with the catalog")
			}
			if resp.Header.Get("Last-Modified") == "" {
				t.Error("no Last-Modified after the import")
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server still answers %q after the import", oldName)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The old validator no longer matches.
	resp, _ := s.get(path, tok, map[string]string{"If-None-Match": before.Header.Get("ETag")})
	if resp.StatusCode != 200 {
		t.Errorf("old ETag after the import: %d", resp.StatusCode)
	}
}

func mustWriteJSON(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	f := filepath.Join(tb.TempDir(), "catalog.json")
	if err := os.WriteFile(f, b, 0o600); err != nil {
		tb.Fatal(err)
	}
	return f
}
