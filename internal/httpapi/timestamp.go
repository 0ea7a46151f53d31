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

var (
	// stampSeconds are the date and time of day of access-log lines.
	stampSeconds = secondText{layout: "2006-01-02T15:04:05"}
	// dateSeconds are the Date header's values (RFC 9110 §6.6.1, the IMF-fixdate).
	dateSeconds = secondText{layout: http.TimeFormat}
)

// appendTimestamp appends t in UTC as time.RFC3339Nano does (the fraction without its
// trailing zeros, none for a whole second), formatting the date and time of day only
// when the second changes.
func appendTimestamp(b []byte, t time.Time) []byte {
	b = append(b, stampSeconds.at(t)[0]...)
	if ns := uint32(t.Nanosecond()); ns != 0 {
		// Two digits a division, in 32 bits: a signed 64-bit division a digit cost about
		// 16 instructions each.
		var d [10]byte
		d[0], d[1] = '.', byte('0'+ns/1e8)
		ns %= 1e8
		for i := 8; i > 0; i -= 2 {
			p := ns % 100 * 2
			ns /= 100
			d[i], d[i+1] = digitPairs[p], digitPairs[p+1]
		}
		n := len(d)
		for d[n-1] == '0' {
			n--
		}
		b = append(b, d[:n]...)
	}
	return append(b, 'Z')
}

// digitPairs holds 00 to 99, two bytes each.
const digitPairs = "00010203040506070809" + "10111213141516171819" + "20212223242526272829" +
	"30313233343536373839" + "40414243444546474849" + "50515253545556575859" +
	"60616263646566676869" + "70717273747576777879" + "80818283848586878889" + "90919293949596979899"
