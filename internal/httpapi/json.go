package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
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
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
		return nil, skygate.Errorf(skygate.CodeUnsupportedMediaType, "the body must be application/json, got %q", ct)
	}
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

// decodeOptionalJSON is decodeJSON for a body that may be left out: an empty body,
// with or without a media type, leaves v as it is.
func decodeOptionalJSON(w http.ResponseWriter, r *http.Request, v any) error {
	if r.Header.Get("Content-Type") == "" {
		if n, _ := io.ReadFull(r.Body, make([]byte, 1)); n == 0 {
			return nil
		}
	}
	body, err := readJSONBody(w, r)
	if err != nil || len(bytes.TrimSpace(body)) == 0 {
		return err
	}
	return unmarshalStrict(body, v)
}

// unmarshalStrict decodes exactly one JSON value with no unknown fields.
func unmarshalStrict(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return skygate.Errorf(skygate.CodeBadRequest, "the body is empty; a JSON object is required")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badJSON(err)
	}
	if dec.More() {
		return skygate.Errorf(skygate.CodeBadRequest, "the body holds more than one JSON value")
	}
	if _, err := dec.Token(); err != io.EOF {
		return skygate.Errorf(skygate.CodeBadRequest, "the body holds data after the JSON value")
	}
	return nil
}

// badJSON explains a decoding error without echoing Go type names.
func badJSON(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return skygate.Errorf(skygate.CodeBadRequest, "malformed JSON at byte %d", syn.Offset)
	case errors.As(err, &typ):
		return &skygate.Error{Code: skygate.CodeBadRequest, Message: "a field has the wrong JSON type",
			Fields: []skygate.FieldError{{Field: typ.Field, Message: "must be a JSON " + jsonKind(typ.Type.Kind().String())}}}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return skygate.Errorf(skygate.CodeBadRequest, "the JSON body ends early")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return &skygate.Error{Code: skygate.CodeBadRequest, Message: "the body has an unknown field",
			Fields: []skygate.FieldError{{Field: field, Message: "unknown field"}}}
	default:
		return skygate.Errorf(skygate.CodeBadRequest, "the body is not valid JSON")
	}
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "slice", "array":
		return "array"
	case "map", "struct", "ptr":
		return "object"
	default:
		return "number"
	}
}

// writeJSON writes v with the status. Encoding happens before the header is sent, so an
// encoding failure is still a clean 500.
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
