package httpapi

import (
	"errors"
	"testing"

	"github.com/skygate/skygate"
)

// FuzzUnmarshalStrict: request decoding never panics and every rejection is a clear
// 400 BadRequest, never an internal error.
func FuzzUnmarshalStrict(f *testing.F) {
	for _, seed := range []string{
		`{"event":"issue"}`, `{}`, ``, `null`, `[]`, `{"event":1}`, `{"event":"a","x":1}`,
		`{"event":"\u0000"}`, "{\"event\":\"a\x00\"}", `{"event":"a"}{}`, `{"event":"a"} x`,
		`{"event":` + string(make([]byte, 100)) + `}`, `{"a":{"b":{"c":[[[[[[]]]]]]}}}`, `"\ud800"`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var v simulateRequest
		err := unmarshalStrict(body, &v)
		if err != nil && skygate.ErrorCode(err) != skygate.CodeBadRequest {
			t.Fatalf("decode error %v has code %s, want BadRequest", err, skygate.ErrorCode(err))
		}
	})
}

// TestUnmarshalStrict: each kind of bad body is a 400 that says what is wrong and,
// where there is one, names the field as field errors do elsewhere.
func TestUnmarshalStrict(t *testing.T) {
	t.Parallel()
	type passenger struct {
		Name string `json:"name"`
	}
	type request struct {
		Event      string      `json:"event"`
		N          int         `json:"n"`
		Passengers []passenger `json:"passengers"`
	}
	for _, tc := range []struct {
		name, body, message, field string
	}{
		{"empty", "  ", "the body is empty; a JSON object is required", ""},
		{"malformed", `{"event":}`, "malformed JSON at byte 9", ""},
		{"ends early", `{"event":`, "the JSON body ends early", ""},
		{"two values", `{"event":"a"}{}`, "malformed JSON at byte 13", ""},
		{"trailing garbage", `{"event":"a"} x`, "malformed JSON at byte 14", ""},
		{"raw NUL", "{\"event\":\"a\x00\"}", "malformed JSON at byte 11", ""},
		{"invalid UTF-8", "{\"event\":\"a\xff\"}", "malformed JSON at byte 11", ""},
		{"unknown field", `{"event":"a","x":1}`, "the body has an unknown field", "x"},
		{"unknown nested field", `{"passengers":[{"name":"a"},{"nom":"b"}]}`, "the body has an unknown field", "passengers[1].nom"},
		{"another case", `{"Event":"a"}`, "the body has an unknown field", "Event"},
		{"field twice", `{"event":"a","event":"b"}`, "the body names a field twice", "event"},
		{"wrong type", `{"n":"x"}`, "a field has the wrong JSON type", "n"},
		{"wrong nested type", `{"passengers":[{"name":1}]}`, "a field has the wrong JSON type", "passengers[0].name"},
		{"not an object", `[]`, "a field has the wrong JSON type", ""},
	} {
		var v request
		err := unmarshalStrict([]byte(tc.body), &v)
		var e *skygate.Error
		if !errors.As(err, &e) || e.Code != skygate.CodeBadRequest || e.Message != tc.message {
			t.Errorf("%s: %v, want BadRequest %q", tc.name, err, tc.message)
			continue
		}
		if tc.field != "" && (len(e.Fields) != 1 || e.Fields[0].Field != tc.field) {
			t.Errorf("%s: fields %+v, want %q", tc.name, e.Fields, tc.field)
		}
	}
}
