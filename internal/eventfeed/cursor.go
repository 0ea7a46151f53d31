package eventfeed

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/skygate/skygate"
)

// cursorVersion opens every cursor's plaintext, so that a later format can tell its
// own from this one's.
const cursorVersion = 1

// maxCursorLen bounds a cursor's text: base64url of the sealed version, two varints
// and the AEAD's nonce and tag, with room to spare.
const maxCursorLen = 96

// Cursor is a reader's place in its account's feed: every event with a position at or
// below Pos was read or skipped by the filter. Since is the time the cursor stands
// for: events the reader has not read yet were created at or after it (the creation
// time of the last event read, or the time the cursor was issued at the head). A
// cursor expires (expiredBefore) before any event it has yet to read may be purged.
type Cursor struct {
	Pos   int64
	Since time.Time
}

// errMalformedCursor is the 400 of a cursor that this service did not issue to the
// account.
var errMalformedCursor = &skygate.Error{
	Code:    skygate.CodeBadRequest,
	Message: "after must be a next_cursor this API returned to this account, unchanged",
	Fields:  []skygate.FieldError{{Field: "after", Message: "is not a cursor this API issued to this account"}},
}

// EncodeCursor returns c as the account's opaque cursor: base64url of its version,
// position and time (unix milliseconds), sealed with the service's Sealer and the
// account id as associated data. The position (a platform-wide sequence) and the time
// stay secret, a changed cursor does not open, and a cursor opens for its account
// only.
func (s *Service) EncodeCursor(accountID string, c Cursor) string {
	raw := []byte{cursorVersion}
	raw = binary.AppendUvarint(raw, uint64(max(c.Pos, 0)))
	raw = binary.AppendUvarint(raw, uint64(max(c.Since.UnixMilli(), 0)))
	return base64.RawURLEncoding.EncodeToString(s.cursors.Seal(raw, []byte(accountID)))
}

// DecodeCursor opens a cursor EncodeCursor made for the account, or returns a
// CodeBadRequest error: for anything else, including another account's cursor.
func (s *Service) DecodeCursor(accountID, text string) (Cursor, error) {
	if len(text) > maxCursorLen {
		return Cursor{}, errMalformedCursor
	}
	sealed, err := base64.RawURLEncoding.DecodeString(text)
	if err != nil {
		return Cursor{}, errMalformedCursor
	}
	raw, err := s.cursors.Open(sealed, []byte(accountID))
	if err != nil || len(raw) == 0 || raw[0] != cursorVersion {
		return Cursor{}, errMalformedCursor
	}
	raw = raw[1:]
	pos, n := binary.Uvarint(raw)
	if n <= 0 || pos > 1<<62 {
		return Cursor{}, errMalformedCursor
	}
	ms, m := binary.Uvarint(raw[n:])
	if m <= 0 || n+m != len(raw) || ms > 1<<50 {
		return Cursor{}, errMalformedCursor
	}
	return Cursor{Pos: int64(pos), Since: time.UnixMilli(int64(ms)).UTC()}, nil
}

// expiredBefore returns the earliest Since of a cursor still accepted at now: the
// retention plus half of skygate.EventRetentionMargin ago. A reader whose cursor
// stands for an event near the retention's edge (one that started without after on
// the oldest events kept) thus has half an hour to read on, and the events it has
// yet to read are still half an hour from their purge, which leaves room for the
// replicas' clocks to differ.
func (s *Service) expiredBefore(now time.Time) time.Time {
	return now.Add(-s.retention - skygate.EventRetentionMargin/2)
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
