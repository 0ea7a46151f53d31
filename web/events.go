package web

import (
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
// catalog shows the schemas the document declares rather than a copy of them.
var eventsMarkdown = sync.OnceValues(func() (string, error) {
	src, err := fs.ReadFile(content, "content/events.md")
	if err != nil {
		return "", err
	}
	doc, err := api.Load(context.Background())
	if err != nil {
		return "", err
	}
	var missing error
	out := schemaLine.ReplaceAllStringFunc(string(src), func(line string) string {
		name := schemaLine.FindStringSubmatch(line)[1]
		ref := doc.Components.Schemas[name]
		if ref == nil {
			missing = fmt.Errorf("web: events.md: no schema %s in the OpenAPI document", name)
			return line
		}
		b, err := json.MarshalIndent(ref.Value, "", "  ")
		if err != nil {
			missing = err
			return line
		}
		return "```json\n" + string(b) + "\n```"
	})
	return out, missing
})
