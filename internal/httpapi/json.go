package httpapi

import (
	"bytes"
	"encoding/json"
	"encoding/json/jsontext"
	jsonv2 "encoding/json/v2"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/skygate/skygate"
)

// maxBodyBytes caps every JSON request body (413 beyond it).
const maxBodyBytes = 1 << 20

// maxPoolBodyBytes caps an eSIM pool upload, which may hold esim.MaxPoolUpload
// profiles (10,000 JSON objects are about 1.2 MB).
const maxPoolBodyBytes = 4 << 20

// readJSONBody checks the media type and returns the raw body, at most maxBodyBytes.
// Callers that need the exact bytes (idempotency fingerprints) use it directly.
func readJSONBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if err := checkJSONType(r); err != nil {
		return nil, err
	}
	return readBody(w, r)
}

// checkJSONType refuses (415) a Content-Type other than application/json or +json.
func checkJSONType(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
		return skygate.Errorf(skygate.CodeUnsupportedMediaType, "the body must be application/json, got %q", ct)
	}
	return nil
}

// readBody returns the raw body, at most maxBodyBytes (413 beyond).
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, skygate.Errorf(skygate.CodePayloadTooLarge, "the body exceeds %d bytes", maxBodyBytes)
		}
		return nil, skygate.Errorf(skygate.CodeBadRequest, "the body could not be read")
	}
	return body, nil
}

// decodeJSON reads a JSON body into v: 415 for another media type, 413 beyond 1 MiB,
// 400 for malformed JSON, unknown fields, or anything after the value.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any) ([]byte, error) {
	body, err := readJSONBody(w, r)
	if err != nil {
		return nil, err
	}
	return body, unmarshalStrict(body, v)
}

// decodeOptionalJSON is decodeJSON for a body that may be left out: an empty body
// (or only white space) leaves v as it is whatever its Content-Type, since clients
// that send nothing still label it (curl -d "" sends form-urlencoded, SDKs text/plain).
// The media type is checked (415) only when there is a body.
func decodeOptionalJSON(w http.ResponseWriter, r *http.Request, v any) error {
	body, err := readBody(w, r)
	if err != nil || len(bytes.TrimSpace(body)) == 0 {
		return err
	}
	if err := checkJSONType(r); err != nil {
		return err
	}
	return unmarshalStrict(body, v)
}

// unmarshalStrict decodes exactly one JSON value into v with encoding/json/v2, which
// refuses what a lenient parser would guess at: unknown fields, a field named twice,
// invalid UTF-8, field names in another case than the contract's, and anything after
// the value. Every refusal is a 400 that names the field when there is one.
func unmarshalStrict(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return skygate.Errorf(skygate.CodeBadRequest, "the body is empty; a JSON object is required")
	}
	if err := jsonv2.Unmarshal(body, v, jsonv2.RejectUnknownMembers(true)); err != nil {
		return badJSON(err)
	}
	return nil
}

// badJSON explains a decoding error of encoding/json/v2 or encoding/json (which the
// booking request's shape check uses) without echoing Go type names.
func badJSON(err error) error {
	var syn *jsontext.SyntacticError
	var sem *jsonv2.SemanticError
	var syn1 *json.SyntaxError
	var typ1 *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn1):
		return skygate.Errorf(skygate.CodeBadRequest, "malformed JSON at byte %d", syn1.Offset)
	case errors.As(err, &typ1):
		return &skygate.Error{Code: skygate.CodeBadRequest, Message: "a field has the wrong JSON type",
			Fields: []skygate.FieldError{{Field: typ1.Field, Message: "must be a JSON " + jsonKind(typ1.Type.Kind())}}}
	case errors.Is(err, jsontext.ErrDuplicateName) && errors.As(err, &syn):
		field := fieldName(syn.JSONPointer)
		return &skygate.Error{Code: skygate.CodeBadRequest, Message: "the body names a field twice",
			Fields: []skygate.FieldError{{Field: field, Message: "appears more than once"}}}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return skygate.Errorf(skygate.CodeBadRequest, "the JSON body ends early")
	case errors.As(err, &syn):
		return skygate.Errorf(skygate.CodeBadRequest, "malformed JSON at byte %d", syn.ByteOffset)
	case errors.Is(err, jsonv2.ErrUnknownName) && errors.As(err, &sem):
		return &skygate.Error{Code: skygate.CodeBadRequest, Message: "the body has an unknown field",
			Fields: []skygate.FieldError{{Field: fieldName(sem.JSONPointer), Message: "unknown field"}}}
	case errors.As(err, &sem) && sem.GoType != nil:
		return &skygate.Error{Code: skygate.CodeBadRequest, Message: "a field has the wrong JSON type",
			Fields: []skygate.FieldError{{Field: fieldName(sem.JSONPointer), Message: "must be a JSON " + jsonKind(sem.GoType.Kind())}}}
	default:
		return skygate.Errorf(skygate.CodeBadRequest, "the body is not valid JSON")
	}
}

// fieldName writes a JSON Pointer ("/passengers/0/name") as field errors name fields
// elsewhere ("passengers[0].name").
func fieldName(p jsontext.Pointer) string {
	var b strings.Builder
	for tok := range p.Tokens() {
		if _, err := strconv.ParseUint(tok, 10, 64); err == nil && b.Len() > 0 {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct, reflect.Pointer, reflect.Interface:
		return "object"
	default:
		return "number"
	}
}

// reply returns what answers a service's result: v with status (writeJSON), or the
// service's error.
func reply(w http.ResponseWriter, status int) func(v any, err error) error {
	return func(v any, err error) error {
		if err != nil {
			return err
		}
		return writeJSON(w, status, v)
	}
}

// writeJSON writes v with the status, encoded by encoding/json, whose representation
// of the domain types the contract documents. Encoding happens before the header is
// sent, so an encoding failure is still a clean 500.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode response: %w", err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
	return nil
}
