package httpapi

import (
	"sync/atomic"
	"time"
)

// stamp is the formatted second of the last access-log line.
type stamp struct {
	unix int64
	text string // 2006-01-02T15:04:05, UTC
}

// lastStamp caches the second that access-log lines share: under load thousands of
// lines a second format the same date and time.
var lastStamp atomic.Pointer[stamp]

// appendTimestamp appends t in UTC as time.RFC3339Nano does (the fraction without its
// trailing zeros, none for a whole second), formatting the date and time of day only
// when the second changes.
func appendTimestamp(b []byte, t time.Time) []byte {
	t = t.UTC()
	s := lastStamp.Load()
	if sec := t.Unix(); s == nil || s.unix != sec {
		s = &stamp{unix: sec, text: t.Format("2006-01-02T15:04:05")}
		lastStamp.Store(s)
	}
	b = append(b, s.text...)
	if ns := t.Nanosecond(); ns != 0 {
		var d [10]byte
		d[0] = '.'
		for i := 9; i > 0; i-- {
			d[i] = byte('0' + ns%10)
			ns /= 10
		}
		n := len(d)
		for d[n-1] == '0' {
			n--
		}
		b = append(b, d[:n]...)
	}
	return append(b, 'Z')
}
