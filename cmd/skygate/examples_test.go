package main

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/skygate/skygate/api"
)

// TestBookingRequestExampleBooks sends the OpenAPI document's BookingRequest example,
// with the service date a week ahead as the reference shows it, to a real server: the
// example a partner copies must book.
func TestBookingRequestExampleBooks(t *testing.T) {
	t.Parallel()
	doc, err := api.Load(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	example, ok := doc.Components.Schemas["BookingRequest"].Value.Example.(map[string]any)
	if !ok {
		t.Fatal("BookingRequest has no example object")
	}
	example["service_date"] = time.Now().UTC().AddDate(0, 0, 7).Format(time.DateOnly)
	body, err := json.Marshal(example)
	if err != nil {
		t.Fatal(err)
	}
	s := startServer(t, testEnv(t, nil))
	c := s.mustBootstrap("example", bookingScopes)
	resp, got := s.book(s.mtlsClient, s.mustToken(c, ""), "example-1", string(body))
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("the BookingRequest example: %d %s", resp.StatusCode, got)
	}
}
