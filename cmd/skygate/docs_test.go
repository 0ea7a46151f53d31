package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// A real problem's type URI is the public URL of a page of the docs, which the server
// serves.
func TestProblemTypeResolves(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, nil))
	for _, path := range []string{"/v2/catalog/lounges", "/no/such/path"} {
		resp, body := s.get(path, "", nil)
		p := problemOf(t, resp, body)
		typ, _ := p["type"].(string)
		page, ok := strings.CutPrefix(typ, testPublicURL)
		if !ok || page != "/docs/problems/"+p["code"].(string) {
			t.Fatalf("GET %s: type %q, want %s/docs/problems/%s", path, typ, testPublicURL, p["code"])
		}
		// The docs are pages, not API routes: a plain client, not the validating one.
		r, err := http.Get(s.base + page)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != http.StatusOK || !strings.Contains(string(b), "<h1 id=") {
			t.Errorf("GET %s: %d\n%.300s", page, r.StatusCode, b)
		}
	}
}
