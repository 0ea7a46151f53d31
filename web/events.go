package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"
	"sync"

	"github.com/skygate/skygate/api"
)

// schemaLine is a line of events.md that stands for a schema of the OpenAPI document's
// components: {{schema Name}}.
var schemaLine = regexp.MustCompile(`(?m)^\{\{schema ([A-Za-z0-9]+)\}\}$`)

// eventsMarkdown returns content/events.md with each {{schema Name}} line replaced by the
// component schema Name of the whole OpenAPI document as a JSON block, so that the
// catalog shows the schemas the document declares rather than a copy of them. It reads
// the document's JSON (api.JSON), which the server has loaded and validated already.
var eventsMarkdown = sync.OnceValues(func() (string, error) {
	src, err := fs.ReadFile(content, "content/events.md")
	if err != nil {
		return "", err
	}
	whole, err := api.JSON(context.Background())
	if err != nil {
		return "", err
	}
	var doc struct {
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(whole, &doc); err != nil {
		return "", err
	}
	var missing error
	out := schemaLine.ReplaceAllStringFunc(string(src), func(line string) string {
		name := schemaLine.FindStringSubmatch(line)[1]
		schema, ok := doc.Components.Schemas[name]
		if !ok {
			missing = fmt.Errorf("web: events.md: no schema %s in the OpenAPI document", name)
			return line
		}
		var b bytes.Buffer
		if err := json.Indent(&b, schema, "", "  "); err != nil {
			missing = err
			return line
		}
		return "```json\n" + b.String() + "\n```"
	})
	return out, missing
})
