package eventfeed

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/skygate/skygate"
)

// cursorVersion prefixes every cursor, so that a later format can tell its own from
// this one's.
const cursorVersion = "1"

// Cursor is a reader's place in its account's feed: every event with a position at or
// below Pos was read or skipped by the filter. Since is the time the cursor stands
// for: events the reader has not read yet were created at or after it (the creation
// time of the last event read, or the time the cursor was issued at the head). A
// cursor expires once Since is older than the retention, before any event it has
// yet to read may be purged.
type Cursor struct {
	Pos   int64
	Since time.Time
}

// String encodes c opaquely: base64url of "1.<pos>.<since in unix milliseconds>".
// Partners must not parse it; the format may change with its version.
func (c Cursor) String() string {
	raw := cursorVersion + "." + strconv.FormatInt(c.Pos, 10) + "." + strconv.FormatInt(c.Since.UnixMilli(), 10)
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// errMalformedCursor is the 400 of a cursor that this service did not issue.
var errMalformedCursor = &skygate.Error{
	Code:    skygate.CodeBadRequest,
	Message: "after must be a next_cursor this API returned, unchanged",
	Fields:  []skygate.FieldError{{Field: "after", Message: "is not a cursor this API issued"}},
}

// ParseCursor decodes a cursor String made, or returns a CodeBadRequest error.
func ParseCursor(s string) (Cursor, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(s) > 64 {
		return Cursor{}, errMalformedCursor
	}
	parts := strings.Split(string(raw), ".")
	if len(parts) != 3 || parts[0] != cursorVersion {
		return Cursor{}, errMalformedCursor
	}
	pos, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || pos < 0 {
		return Cursor{}, errMalformedCursor
	}
	ms, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil || ms < 0 {
		return Cursor{}, errMalformedCursor
	}
	return Cursor{Pos: pos, Since: time.UnixMilli(ms).UTC()}, nil
}

// expiredError is the 410 of a cursor older than the retention.
func expiredError(retention time.Duration) error {
	return &skygate.Error{
		Code: skygate.CodeCursorExpired,
		Message: fmt.Sprintf("the cursor is older than the event retention (%s): events after it may have been purged; "+
			"restart without after (from the oldest event kept) or recover missed events with POST /api/v1/b2b/webhooks/{webhookID}/recover",
			retention),
	}
}
