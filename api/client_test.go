package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/skygate/skygate/api"
)

// clientCopy is the partner view the Go client (a module of its own, client/) is
// generated from.
const clientCopy = "../client/openapi.json"

var updateClient = flag.Bool("update-client", false, "rewrite "+clientCopy+" from the partner view (scripts/generate-client)")

// TestClientOpenAPICopy: the client's copy of the document is the partner view, indented
// so that its diffs read, or the generated client describes another API than the one
// served. scripts/generate-client rewrites it (-update-client) and regenerates the client.
func TestClientOpenAPICopy(t *testing.T) {
	t.Parallel()
	b, err := api.PartnerJSON(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := json.Indent(&want, b, "", "  "); err != nil {
		t.Fatal(err)
	}
	want.WriteByte('\n')
	if *updateClient {
		if err := os.WriteFile(clientCopy, want.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(clientCopy)
	if err != nil {
		t.Fatalf("%v: run scripts/generate-client", err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("%s differs from the partner view (api.PartnerJSON): run scripts/generate-client and commit what it changes", clientCopy)
	}
}
