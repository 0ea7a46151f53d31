package httpapi

import (
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
