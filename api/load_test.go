package api_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/skygate/skygate/api"
)

func TestDocumentIsValid(t *testing.T) {
	t.Parallel()
	b, err := api.JSON(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || m["openapi"] != "3.1.0" {
		t.Fatalf("openapi.json: %v %v", err, m["openapi"])
	}
}
