package booking

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzCanonical proves appendCanonical writes what json.Marshal writes, for every
// document the decoder makes of a body and for every string, valid UTF-8 or not, as a
// value and as a key: a stored fingerprint must stay valid whichever wrote it.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{
		`{"b":1,"a":[true,false,null,"x"],"c":{"z":"<&>","y":1.50e+3}}`,
		`{"passengers":[{"first_name":"Ада","last_name":"O'Neil\u2028\u2029"}],"n":-0}`,
		"\"\\u0000\\b\\f\\n\\r\\t\\u001f\\u007f\\\"\\\\/\"",
		"\xff\xfe<script>\u2028",
		`[]`, `{}`, `""`, `0`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		docs := []any{string(data), map[string]any{string(data): string(data), "k": []any{string(data)}}}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var doc any
		if dec.Decode(&doc) == nil {
			docs = append(docs, doc)
		}
		for _, d := range docs {
			want, err := json.Marshal(d)
			if err != nil {
				t.Fatalf("json.Marshal(%#v): %v", d, err)
			}
			got, err := appendCanonical(nil, d)
			if err != nil {
				t.Fatalf("appendCanonical(%#v): %v", d, err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("appendCanonical(%#v)\n got %s\nwant %s", d, got, want)
			}
		}
	})
}

func TestCanonicalRejectsOtherTypes(t *testing.T) {
	t.Parallel()
	for _, v := range []any{1.5, 3, struct{}{}, map[string]int{}} {
		if _, err := appendCanonical(nil, v); err == nil {
			t.Errorf("appendCanonical(%T) succeeded; only decoder types are expected", v)
		}
	}
}
