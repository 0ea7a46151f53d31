package api

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

// The document marks what a partner is not meant to read with three vendor extensions,
// which PartnerJSON interprets:
//
//   - "x-audience": "employee" or "operator" on a path item, an operation, a parameter
//     or a schema property removes it from the partner view (admin API, employee login,
//     operations and metrics routes);
//   - "x-partner-description" next to a "description" replaces it in the partner view,
//     where the description mixes partner text with operator material (proxy headers,
//     SKYGATE_* variables). The whole document keeps the full description;
//   - "x-partner-enum" next to an "enum" replaces it likewise (a grant type employees
//     use, say).
const (
	audienceKey           = "x-audience"
	partnerDescriptionKey = "x-partner-description"
	partnerEnumKey        = "x-partner-enum"
)

// partnerJSON is computed once: the document is embedded, so its partner view never
// changes while the process runs.
var partnerJSON = sync.OnceValues(func() ([]byte, error) { return buildPartner(context.Background()) })

// PartnerJSON returns the partner view of the document as JSON, for GET
// /openapi/partner.json and the partner API reference: only the operations a partner
// calls (token, JWKS, discovery, catalog, booking, sandbox, eSIM, webhooks), the
// components they use and partner-facing descriptions. It is validated as OpenAPI 3.1
// like the whole document.
func PartnerJSON(ctx context.Context) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return partnerJSON()
}

func buildPartner(ctx context.Context) ([]byte, error) {
	whole, err := JSON(ctx)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := json.Unmarshal(whole, &doc); err != nil {
		return nil, fmt.Errorf("openapi: partner view: %w", err)
	}
	filtered, _ := filterAudience(doc)
	doc = filtered.(map[string]any)
	dropEmptyPaths(doc)
	pruneComponents(doc)
	pruneTags(doc)

	b, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("openapi: partner view: %w", err)
	}
	// Load it again: the partner view must be a valid document on its own (every
	// remaining $ref resolves).
	t, err := openapi3.NewLoader().LoadFromData(b)
	if err != nil {
		return nil, fmt.Errorf("openapi: partner view: %w", err)
	}
	if err := t.Validate(ctx); err != nil {
		return nil, fmt.Errorf("openapi: partner view: %w", err)
	}
	return json.Marshal(t)
}

// filterAudience returns v without the objects marked for another audience, with
// partner descriptions in place of full ones. keep is false when v itself is marked.
func filterAudience(v any) (out any, keep bool) {
	switch v := v.(type) {
	case map[string]any:
		if a, ok := v[audienceKey]; ok && a != "partner" {
			return nil, false
		}
		m := make(map[string]any, len(v))
		for k, e := range v {
			if k == audienceKey || k == partnerDescriptionKey || k == partnerEnumKey {
				continue
			}
			if f, ok := filterAudience(e); ok {
				m[k] = f
			}
		}
		if d, ok := v[partnerDescriptionKey]; ok {
			if s, _ := d.(string); s == "" {
				delete(m, "description")
			} else {
				m["description"] = s
			}
		}
		if e, ok := v[partnerEnumKey]; ok {
			m["enum"] = e
		}
		// A schema's required list may name a property that was just removed.
		if props, ok := m["properties"].(map[string]any); ok {
			if req, ok := m["required"].([]any); ok {
				var kept []any
				for _, r := range req {
					if _, ok := props[fmt.Sprint(r)]; ok {
						kept = append(kept, r)
					}
				}
				m["required"] = kept
			}
		}
		return m, true
	case []any:
		s := make([]any, 0, len(v))
		for _, e := range v {
			if f, ok := filterAudience(e); ok {
				s = append(s, f)
			}
		}
		return s, true
	default:
		return v, true
	}
}

// httpMethods are the operation keys of a path item.
var httpMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// dropEmptyPaths removes path items left without operations.
func dropEmptyPaths(doc map[string]any) {
	paths, _ := doc["paths"].(map[string]any)
	for p, item := range paths {
		m, _ := item.(map[string]any)
		has := false
		for _, method := range httpMethods {
			_, ok := m[method]
			has = has || ok
		}
		if !has {
			delete(paths, p)
		}
	}
}

// pruneComponents removes the components nothing outside them refers to any more
// (admin schemas, the employee security scheme …), until none is left unreferenced.
func pruneComponents(doc map[string]any) {
	comps, _ := doc["components"].(map[string]any)
	for {
		used := map[string]bool{}
		schemes := map[string]bool{}
		for k, v := range doc {
			if k != "components" {
				collectRefs(v, used, schemes)
			}
		}
		for kind, group := range comps {
			g, _ := group.(map[string]any)
			for name, v := range g {
				if kind == "securitySchemes" {
					continue
				}
				// A component's references count unless it refers to itself only.
				inner := map[string]bool{}
				collectRefs(v, inner, schemes)
				delete(inner, "#/components/"+kind+"/"+name)
				for r := range inner {
					used[r] = true
				}
			}
		}
		removed := false
		for kind, group := range comps {
			g, _ := group.(map[string]any)
			for name := range g {
				ref := "#/components/" + kind + "/" + name
				if (kind == "securitySchemes" && !schemes[name]) || (kind != "securitySchemes" && !used[ref]) {
					delete(g, name)
					removed = true
				}
			}
		}
		if !removed {
			return
		}
	}
}

// collectRefs adds every $ref under v to refs and every security scheme named in a
// security requirement to schemes.
func collectRefs(v any, refs, schemes map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if s, ok := e.(string); ok && k == "$ref" {
				refs[s] = true
			}
			if reqs, ok := e.([]any); ok && k == "security" {
				for _, r := range reqs {
					if m, ok := r.(map[string]any); ok {
						for name := range m {
							schemes[name] = true
						}
					}
				}
			}
			collectRefs(e, refs, schemes)
		}
	case []any:
		for _, e := range v {
			collectRefs(e, refs, schemes)
		}
	}
}

// pruneTags keeps the tags that some remaining operation uses.
func pruneTags(doc map[string]any) {
	used := map[string]bool{}
	paths, _ := doc["paths"].(map[string]any)
	for _, item := range paths {
		m, _ := item.(map[string]any)
		for _, method := range httpMethods {
			op, _ := m[method].(map[string]any)
			tags, _ := op["tags"].([]any)
			for _, t := range tags {
				used[fmt.Sprint(t)] = true
			}
		}
	}
	tags, _ := doc["tags"].([]any)
	var kept []any
	for _, t := range tags {
		m, _ := t.(map[string]any)
		if used[fmt.Sprint(m["name"])] {
			kept = append(kept, t)
		}
	}
	doc["tags"] = kept
}
