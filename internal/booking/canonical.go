package booking

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/skygate/skygate/internal/jsonstring"
)

// appendCanonical appends the canonical form of a document decoded by encoding/json
// with UseNumber (map[string]any, []any, string, json.Number, bool, nil): byte for
// byte what json.Marshal writes for it — keys sorted, strings escaped as json.Marshal
// escapes them (HTML characters, U+2028 and U+2029 included), numbers as written — so
// fingerprints stored before this encoder existed still match (FuzzCanonical proves
// the two agree). It exists because json.Marshal's reflection over maps cost about half
// of a fingerprint.
func appendCanonical(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		if v {
			return append(b, "true"...), nil
		}
		return append(b, "false"...), nil
	case string:
		return jsonstring.Append(b, v, true), nil
	case json.Number:
		if v == "" {
			return append(b, '0'), nil
		}
		return append(b, v...), nil
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendCanonical(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		keys := make([]string, 0, len(v)) // sized: slices.Sorted(maps.Keys(v)) grows it
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(jsonstring.Append(b, k, true), ':')
			var err error
			if b, err = appendCanonical(b, v[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	default:
		return nil, fmt.Errorf("canonical JSON: unexpected %T", v)
	}
}
