package api

import (
	"context"
	"encoding/json"
	"fmt"

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

// JSON returns the document as JSON, for GET /openapi.json.
func JSON(ctx context.Context) ([]byte, error) {
	doc, err := Load(ctx)
	if err != nil {
		return nil, err
	}
	return json.Marshal(doc)
}
