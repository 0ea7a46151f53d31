// Package api embeds the OpenAPI 3.1 document, the contract of the service.
package api

import _ "embed"

// OpenAPIYAML is api/openapi.yaml as written.
//
//go:embed openapi.yaml
var OpenAPIYAML []byte
