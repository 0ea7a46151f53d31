package httpapi

import (
	"net/http"
	"sync/atomic"
	"time"
)

// secondText caches the text of one second in UTC, in one layout, for as long as the
// clock stays in that second: under load thousands of requests a second would format
// the same date and time, and time.Format's code is large enough that a request which
// runs it misses the instruction cache about fifty times.
type secondText struct {
	layout string
	last   atomic.Pointer[formattedSecond]
}

type formattedSecond struct {
	unix int64
	// text has one element, so that it serves as an http.Header value as it is. Its
	// capacity is its length: an Add to that header copies it instead of writing into
	// the shared array.
	text []string
}

// at returns t's second formatted in UTC with c's layout, as a one-element slice that
// the caller must not modify.
func (c *secondText) at(t time.Time) []string {
	sec := t.Unix()
	if f := c.last.Load(); f != nil && f.unix == sec {
		return f.text
	}
	f := &formattedSecond{unix: sec, text: []string{t.UTC().Format(c.layout)}}
	c.last.Store(f)
	return f.text
}

// dateSeconds are the Date header's values (RFC 9110 §6.6.1, the IMF-fixdate).
var dateSeconds = secondText{layout: http.TimeFormat}
