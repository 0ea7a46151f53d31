package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"time"

	"github.com/skygate/skygate"
)

// Decode parses a catalog document strictly: unknown fields and trailing data are
// rejected. Malformed JSON is a CodeBadRequest *skygate.Error whose message says where;
// Decode does not validate the content (Validate does).
func Decode(data []byte) (*skygate.CatalogData, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var d skygate.CatalogData
	if err := dec.Decode(&d); err != nil {
		return nil, decodeError(data, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, &skygate.Error{Code: skygate.CodeBadRequest, Message: "the catalog document has data after its end"}
	}
	return &d, nil
}

func decodeError(data []byte, err error) error {
	var (
		syntax *json.SyntaxError
		typ    *json.UnmarshalTypeError
	)
	e := &skygate.Error{Code: skygate.CodeBadRequest, Message: "the catalog document is not valid JSON", Err: err}
	switch {
	case errors.As(err, &syntax):
		line, col := position(data, syntax.Offset)
		e.Message = fmt.Sprintf("the catalog document is not valid JSON at line %d, column %d", line, col)
	case errors.As(err, &typ):
		e.Message = "the catalog document has a value of the wrong type"
		e.Fields = []skygate.FieldError{{Field: typ.Field, Message: "must not be a JSON " + typ.Value}}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		e.Message = "the catalog document is empty or truncated"
	default:
		// DisallowUnknownFields reports `json: unknown field "x"`; the text names only the
		// field, which is the caller's own input.
		e.Message = "the catalog document is not valid: " + err.Error()
	}
	return e
}

// position converts a byte offset into a 1-based line and column.
func position(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1)
	return line, max(col, 1)
}

var isoDuration = regexp.MustCompile(`^P(?:(\d{1,3})D)?(?:T(?:(\d{1,4})H)?(?:(\d{1,4})M)?)?$`)

// ParseISODuration parses the ISO 8601 duration subset the catalog uses for max_duration
// and booking_before_hours: days, hours and minutes ("P1D", "PT3H", "PT2H30M",
// "P1DT12H"). The result is positive; anything else is an error.
func ParseISODuration(s string) (time.Duration, error) {
	m := isoDuration.FindStringSubmatch(s)
	if m == nil || s == "P" || s[len(s)-1] == 'T' {
		return 0, fmt.Errorf("%q is not an ISO 8601 duration of days, hours and minutes", s)
	}
	var d time.Duration
	for i, unit := range []time.Duration{24 * time.Hour, time.Hour, time.Minute} {
		n, _ := strconv.Atoi(m[i+1]) // a short digit run, or "" (0) for an absent unit
		d += time.Duration(n) * unit
	}
	if d <= 0 {
		return 0, fmt.Errorf("%q is not a positive duration", s)
	}
	return d, nil
}
