package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/skygate/skygate"
)

// A shape is a JSON document that gives the form of a request body: each member's
// value has the member's JSON type (objects, arrays and strings so far), and an
// array's one element gives the form of every element. checkShape holds a body to it
// before the body is decoded into its Go type, so that every unknown member and every
// value of the wrong type is reported with its path, where encoding/json stops at the
// first.

// mustShape decodes a shape written as JSON.
func mustShape(doc string) any {
	v, err := decodeDocument([]byte(doc))
	if err != nil {
		panic(fmt.Sprintf("httpapi: shape %s: %v", doc, err))
	}
	return v
}

// decodeDocument decodes one JSON value into maps, slices, strings, json.Numbers,
// bools and nils.
func decodeDocument(body []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, badJSON(err)
	}
	return doc, nil
}

// checkShape checks a JSON body against shape, an object: 400 when the body is not an
// object or has members the shape does not have (every one named by its path, such as
// passengers[0].middle_name), else 422 naming each value of another JSON type. A null
// member counts as absent; a null array element is of the wrong type.
func checkShape(body []byte, shape any) error {
	doc, err := decodeDocument(body)
	if err != nil {
		return err
	}
	if _, ok := doc.(map[string]any); !ok {
		return skygate.Errorf(skygate.CodeBadRequest, "the body must be a JSON object")
	}
	var c shapeCheck
	c.walk(doc, shape, "")
	byField := func(a, b skygate.FieldError) int { return strings.Compare(a.Field, b.Field) }
	if len(c.unknown) > 0 {
		slices.SortFunc(c.unknown, byField)
		names := make([]string, len(c.unknown))
		for i, f := range c.unknown {
			names[i] = f.Field
		}
		return &skygate.Error{Code: skygate.CodeBadRequest,
			Message: "the body has unknown fields: " + strings.Join(names, ", "), Fields: c.unknown}
	}
	if len(c.mistyped) > 0 {
		slices.SortFunc(c.mistyped, byField)
		return skygate.ValidationError(c.mistyped...)
	}
	return nil
}

// shapeCheck collects what checkShape reports.
type shapeCheck struct {
	unknown, mistyped []skygate.FieldError
}

func (c *shapeCheck) walk(v, shape any, path string) {
	var ok bool
	switch shape := shape.(type) {
	case map[string]any:
		var m map[string]any
		if m, ok = v.(map[string]any); ok {
			for name, member := range m {
				p := name
				if path != "" {
					p = path + "." + name
				}
				switch form, known := shape[name]; {
				case !known:
					c.unknown = append(c.unknown, skygate.FieldError{Field: p, Message: "unknown field"})
				case member != nil:
					c.walk(member, form, p)
				}
			}
		}
		c.want(ok, path, "an object")
	case []any:
		var list []any
		if list, ok = v.([]any); ok {
			for i, e := range list {
				c.walk(e, shape[0], fmt.Sprintf("%s[%d]", path, i))
			}
		}
		c.want(ok, path, "an array")
	case string:
		_, ok = v.(string)
		c.want(ok, path, "a string")
	default: // a kind that no request has yet
		panic(fmt.Sprintf("httpapi: shape value %T", shape))
	}
}

// want records a value of the wrong type unless ok.
func (c *shapeCheck) want(ok bool, path, kind string) {
	if !ok {
		c.mistyped = append(c.mistyped, skygate.FieldError{Field: path, Message: "must be " + kind})
	}
}
