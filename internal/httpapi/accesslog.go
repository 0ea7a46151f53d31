package httpapi

import (
	"fmt"
	"io"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/skygate/skygate/internal/jsonstring"
	"github.com/skygate/skygate/internal/oauth"
)

// accessLog writes the access log: one JSON line per request, in the shape of the
// service's other log lines (slog's JSON handler):
//
//	{"time":"2026-11-24T02:55:08.123456789Z","level":"INFO","msg":"request","method":"GET",
//	 "path":"/v2/catalog/lounges","route":"GET /v2/catalog/lounges","status":200,
//	 "bytes":2424,"duration_ms":0.184,"request_id":"…","source":"192.0.2.7",
//	 "account_id":"…","sub":"…"}
//
// (source is the address the request came from, see Server.source, "" when it is not
// an IP address; account_id only for B2B tokens, sub for every authenticated request). The line is
// encoded by hand into a pooled buffer: slog's generic encoder cost as much as all the
// rest of serving a cached catalog page (3.7 µs of 7.7 µs in
// BenchmarkAuthenticatedCatalogGET).
type accessLog struct {
	w    io.Writer
	bufs sync.Pool
}

// accessEntry is what one line reports. claims is nil for a request that was not
// authenticated. route, requestID and source are written as they are, without JSON
// escaping, which they never need: every route is a pattern that plainPattern accepted
// when it was registered (or "unmatched"), a request id is one that validRequestID
// accepts or newRequestID made, and an address without a zone is hexadecimal digits,
// dots and colons. The method, the path and the claims' identifiers are escaped
// unless they are known not to need it (see appendString's callers): HTTP/1 admits only
// token characters in a method, but net/http's HTTP/2 server passes any :method that is
// a valid header value, quotes included; a path is whatever the client sent.
type accessEntry struct {
	at                  time.Time
	method, path, route string
	status              int
	bytes               int64
	elapsed             time.Duration
	requestID           string
	source              netip.Addr
	claims              *oauth.Claims
}

func newAccessLog(w io.Writer) *accessLog {
	if w == nil {
		return nil
	}
	return &accessLog{w: w, bufs: sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}}
}

// write writes e's line. w gets the whole line in one Write and must not keep it.
func (l *accessLog) write(e *accessEntry) {
	bp := l.bufs.Get().(*[]byte)
	b := appendAccessLine((*bp)[:0], e)
	_, _ = l.w.Write(b)
	*bp = b
	l.bufs.Put(bp)
}

// appendAccessLine appends e as one JSON object and a newline.
func appendAccessLine(b []byte, e *accessEntry) []byte {
	b = append(b, `{"time":"`...)
	b = appendTimestamp(b, e.at)
	b = append(b, `","level":"INFO","msg":"request","method":`...)
	b = appendString(b, e.method, standardMethod(e.method))
	b = append(b, `,"path":`...)
	b = appendString(b, e.path, endsRoute(e.path, e.route))
	b = append(b, `,"route":"`...)
	b = append(b, e.route...)
	b = append(b, `","status":`...)
	b = append(b, decimal(e.status)...)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, e.bytes, 10)
	b = append(b, `,"duration_ms":`...)
	b = appendMillis(b, e.elapsed)
	b = append(b, `,"request_id":"`...)
	b = append(b, e.requestID...)
	b = append(b, `","source":"`...)
	b = e.source.WithZone("").AppendTo(b)
	b = append(b, '"')
	if c := e.claims; c != nil {
		// Verified claims know whether their identifiers need escaping: a token's are
		// checked once, not on each of its requests.
		plain := c.PrintableIDs()
		if c.AccountID != "" {
			b = append(b, `,"account_id":`...)
			b = appendString(b, c.AccountID, plain)
		}
		b = append(b, `,"sub":`...)
		b = appendString(b, c.Subject, plain)
	}
	return append(b, "}\n"...)
}

// appendString appends s as a JSON string: quoted as it is when the caller knows that s
// needs no escaping (plain), else escaped by appendJSONString.
func appendString(b []byte, s string, plain bool) []byte {
	if !plain {
		return appendJSONString(b, s)
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// endsRoute reports whether path is written in JSON as it is because it ends route, as
// the path of a literal pattern does ("/v2/catalog/lounges" of "GET
// /v2/catalog/lounges", which every request that the exact-route table serves has).
// route needs no escaping (see accessEntry), and JSON escapes character by character,
// so neither does a part of it that starts where a character starts: at an ASCII byte,
// or at the empty end. A path that starts inside a multi-byte character of route is
// invalid UTF-8 on its own, and escaped.
func endsRoute(path, route string) bool {
	return strings.HasSuffix(route, path) && (path == "" || path[0] < utf8.RuneSelf)
}

// plainPattern panics unless pattern is written in JSON as it is (see accessEntry). A
// pattern is the code's own constant, so a failure is a programming error, found when
// the server is built.
func plainPattern(pattern string) {
	if q := appendJSONString(nil, pattern); string(q[1:len(q)-1]) != pattern {
		panic(fmt.Sprintf("httpapi: route pattern %q needs JSON escaping", pattern))
	}
}

// appendMillis appends d in milliseconds with microsecond precision (0.184).
func appendMillis(b []byte, d time.Duration) []byte {
	us := d.Microseconds()
	if us < 0 {
		b = append(b, '-')
		us = -us
	}
	b = strconv.AppendInt(b, us/1000, 10)
	frac := us % 1000
	if frac == 0 {
		return b
	}
	b = append(b, '.', byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
	for b[len(b)-1] == '0' {
		b = b[:len(b)-1]
	}
	return b
}

// appendJSONString appends s as a JSON string as an encoding/json Encoder without HTML
// escaping writes it, so any request path yields valid JSON (invalid UTF-8 as U+FFFD).
func appendJSONString(b []byte, s string) []byte { return jsonstring.Append(b, s, false) }
