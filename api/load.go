package api

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

// Load parses and validates the document.
func Load(ctx context.Context) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(OpenAPIYAML)
	if err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	if err := doc.Validate(ctx); err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	return doc, nil
}

// wholeJSON is computed once: the document is embedded, and every server start and
// the partner view (PartnerJSON) read it.
var wholeJSON = sync.OnceValues(func() ([]byte, error) {
	doc, err := Load(context.Background())
	if err != nil {
		return nil, err
	}
	return json.Marshal(doc)
})

// JSON returns the document as JSON, for GET /openapi.json. Callers must not modify
// the bytes: every call returns the same slice.
func JSON(ctx context.Context) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return wholeJSON()
}
