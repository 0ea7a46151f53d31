// Package apitest holds the test helpers that check what the service sends against
// the OpenAPI document (package api): ValidateEvent for event bodies. Only tests
// import it.
package apitest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/api"
)

// document is the OpenAPI document, loaded and validated once per test binary.
var document = sync.OnceValues(func() (*openapi3.T, error) { return api.Load(context.Background()) })

// ValidateEvent checks body, an event's envelope as a webhook delivers it (and the
// events API returns it), against the document: the request body schema of the
// entry of its type in the webhooks section, which holds the envelope (WebhookEvent)
// and the type's data schema. A body that is not a JSON object with a type, and a
// type without a webhooks entry, are errors too: every event the service emits must
// be documented. It validates as JSON Schema 2020-12, the dialect of OpenAPI 3.1, so
// that const and type arrays hold as the document states them. The document admits
// any api_version date (an event keeps the version it was written with); what the
// service writes today must be skygate.APIVersion.
func ValidateEvent(body []byte) error {
	doc, err := document()
	if err != nil {
		return err
	}
	var event struct {
		Type       string `json:"type"`
		APIVersion string `json:"api_version"`
	}
	var v any
	if err := json.Unmarshal(body, &event); err != nil {
		return fmt.Errorf("event body is not a JSON object: %w\n%s", err, body)
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return err
	}
	if event.APIVersion != skygate.APIVersion {
		return fmt.Errorf("event api_version %q, want %q\n%s", event.APIVersion, skygate.APIVersion, body)
	}
	item := doc.Webhooks[event.Type]
	if item == nil || item.Post == nil || item.Post.RequestBody == nil {
		return fmt.Errorf("event type %q has no schema in the document's webhooks\n%s", event.Type, body)
	}
	media := item.Post.RequestBody.Value.Content.Get("application/json")
	if media == nil || media.Schema == nil {
		return fmt.Errorf("event type %q: its webhooks entry has no application/json schema", event.Type)
	}
	if err := media.Schema.Value.VisitJSON(v, openapi3.MultiErrors(), openapi3.EnableJSONSchema2020()); err != nil {
		return fmt.Errorf("%s event does not match its schema: %w\n%s", event.Type, err, body)
	}
	return nil
}
