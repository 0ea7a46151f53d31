package httpapi

import (
	"bytes"
	"context"
	"log/slog"
	"net/netip"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/skygate/skygate/internal/oauth"
	"github.com/skygate/skygate/internal/telemetry"
)

// directLines writes e, of a request whose context is ctx, through an access log that
// has its JSON handler's writer (Deps.AccessLogOutput), the handler adding trace ids
// as the service's does when it traces, and returns what went to the writer directly
// and what went through the handler.
func directLines(ctx context.Context, e *accessEntry) (direct, handled []byte) {
	var out, handler bytes.Buffer
	l := newAccessLog(slog.New(telemetry.LogHandler(slog.NewJSONHandler(&handler, nil))))
	l.out, l.traced = &out, true
	l.write(ctx, e)
	return out.Bytes(), handler.Bytes()
}

// tracedContext is the context of a request in the trace of the traceparent
// 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01.
var tracedContext = trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{
	TraceID:    trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
	SpanID:     trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
	TraceFlags: trace.FlagsSampled,
}))

// TestAccessLogOutput: with its handler's writer, the access log writes the bytes the
// handler would write; an ordinary request's line goes to the writer directly, any
// other's through the handler.
func TestAccessLogOutput(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 24, 2, 55, 8, 123456789, time.FixedZone("UZT", 5*3600))
	base := accessEntry{at: at, method: "GET", path: "/v2/catalog/fast-tracks", route: "GET /v2/catalog/fast-tracks",
		status: 200, bytes: 2424, elapsed: 184567 * time.Nanosecond, requestID: "5f0c2a8e9b1d4c3a-1f",
		source: netip.MustParseAddr("127.0.0.1"),
		claims: &oauth.Claims{AccountID: "0190f3c2-7d52-7bd6-a3c4-0a1b2c3d4e5f", Subject: "skg_4dqitpyozt3fgpf2jqgi2j6b"}}
	for _, tc := range []struct {
		name   string
		edit   func(e *accessEntry)
		direct bool
	}{
		{"partner", func(*accessEntry) {}, true},
		{"anonymous", func(e *accessEntry) { e.claims = nil }, true},
		{"employee", func(e *accessEntry) { e.claims = &oauth.Claims{Subject: "emp@example.com"} }, true},
		{"empty subject", func(e *accessEntry) { e.claims = &oauth.Claims{} }, true},
		{"no source", func(e *accessEntry) { e.source = netip.Addr{} }, true},
		{"IPv6 source", func(e *accessEntry) { e.source = netip.MustParseAddr("2001:db8::7") }, true},
		{"zoned source", func(e *accessEntry) { e.source = netip.MustParseAddr(`fe80::1%eth"0\`) }, true},
		{"304", func(e *accessEntry) { e.status, e.bytes = 304, 0 }, true},
		{"no duration", func(e *accessEntry) { e.elapsed = 0 }, true},
		{"a microsecond", func(e *accessEntry) { e.elapsed = time.Microsecond }, true},
		{"under a microsecond", func(e *accessEntry) { e.elapsed = 999 }, true},
		{"whole milliseconds", func(e *accessEntry) { e.elapsed = 3 * time.Millisecond }, true},
		{"trailing zeros", func(e *accessEntry) { e.elapsed = 1500 * time.Microsecond }, true},
		{"an hour", func(e *accessEntry) { e.elapsed = time.Hour + time.Microsecond }, true},
		{"the longest duration", func(e *accessEntry) { e.elapsed = 1<<63 - 1 }, true},
		{"negative duration", func(e *accessEntry) { e.elapsed = -1500 * time.Microsecond }, true},
		{"whole second", func(e *accessEntry) { e.at = time.Unix(1795000000, 0) }, true},
		{"zero time", func(e *accessEntry) { e.at = time.Time{} }, false},
		{"year 9999", func(e *accessEntry) { e.at = time.Date(9999, 12, 31, 23, 59, 59, 1, time.UTC) }, true},
		{"year 10000", func(e *accessEntry) { e.at = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) }, false},
		{"year -1", func(e *accessEntry) { e.at = time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC) }, false},
		{"every plain character", func(e *accessEntry) { e.path = plainASCII() }, true},
		{"quote in the method", func(e *accessEntry) { e.method = `GE"T` }, false},
		{"backslash in the path", func(e *accessEntry) { e.path = `/a\b` }, false},
		{"control character in the route", func(e *accessEntry) { e.route = "GET /\x7f" }, false},
		{"tab in the request id", func(e *accessEntry) { e.requestID = "a\tb" }, false},
		{"line separator in the account", func(e *accessEntry) { e.claims.AccountID = "a\u2028b" }, false},
		{"invalid UTF-8 in the subject", func(e *accessEntry) { e.claims.Subject = "s\xff" }, false},
		{"non-ASCII subject", func(e *accessEntry) { e.claims.Subject = "Ада@example.com" }, false},
		{"HTML in the path", func(e *accessEntry) { e.path = "/<script>&amp;</script>" }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := base
			if e.claims != nil {
				c := *e.claims
				e.claims = &c
			}
			tc.edit(&e)
			want := accessLine(&e)
			direct, handled := directLines(context.Background(), &e)
			got, other := handled, direct
			if tc.direct {
				got, other = direct, handled
			}
			if !bytes.Equal(got, want) || len(other) != 0 {
				t.Errorf("direct %v: wrote\n%q directly and\n%q through the handler; want\n%q", tc.direct, direct, handled, want)
			}
		})
	}
}

// TestAccessLogOutputTraced: the line of a traced request ends with its trace ids,
// written directly as the handler would write them.
func TestAccessLogOutputTraced(t *testing.T) {
	t.Parallel()
	ids := `,"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","span_id":"00f067aa0ba902b7"}` + "\n"
	for _, tc := range []struct {
		name   string
		e      accessEntry
		direct bool
	}{
		{"partner", accessEntry{at: time.Unix(1795000000, 5), method: "GET", path: "/v2/catalog/lounges", route: "GET /v2/catalog/lounges",
			status: 200, requestID: "r", claims: &oauth.Claims{AccountID: "acc", Subject: "skg_1"}}, true},
		{"anonymous", accessEntry{at: time.Unix(1795000000, 5), method: "GET", path: "/x", route: "unmatched", status: 404}, true},
		{"quote in the path", accessEntry{at: time.Unix(1795000000, 5), method: "GET", path: `/a"b`, route: "unmatched", status: 404}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			want := accessLineIn(tracedContext, &tc.e)
			if !bytes.HasSuffix(want, []byte(ids)) {
				t.Fatalf("the handler's line lacks the trace ids: %q", want)
			}
			direct, handled := directLines(tracedContext, &tc.e)
			got, other := handled, direct
			if tc.direct {
				got, other = direct, handled
			}
			if !bytes.Equal(got, want) || len(other) != 0 {
				t.Errorf("direct %v: wrote\n%q directly and\n%q through the handler; want\n%q", tc.direct, direct, handled, want)
			}
		})
	}
}

// plainASCII is every character that plain accepts.
func plainASCII() string {
	var b []byte
	for c := byte(' '); c <= '~'; c++ {
		if c != '"' && c != '\\' {
			b = append(b, c)
		}
	}
	return string(b)
}

// FuzzAccessLogOutput: whatever the entry, an access log that has its handler's writer
// writes exactly the bytes the handler would, once.
func FuzzAccessLogOutput(f *testing.F) {
	f.Add("GET", "/v2/catalog/fast-tracks", "GET /v2/catalog/fast-tracks", "req-1", "acc-1", "skg_1", true, 200, int64(2424), int64(184567), int64(1795000000123456789))
	f.Add("GET", "/a\"b\\c\n\u2028\xff", "unmatched", "", "", "emp@example.com", true, 404, int64(0), int64(0), int64(0))
	f.Add("DELETE", "/x", "DELETE /x", "r", "", "", false, 204, int64(0), int64(-1), int64(-1))
	f.Fuzz(func(t *testing.T, method, path, route, requestID, account, sub string, claims bool, status int, n, elapsed, unixNano int64) {
		e := accessEntry{at: time.Unix(0, unixNano), method: method, path: path, route: route, status: status, bytes: n,
			elapsed: time.Duration(elapsed), requestID: requestID}
		if claims {
			e.claims = &oauth.Claims{AccountID: account, Subject: sub}
		}
		// Traced or not, by a bit of the time.
		ctx := context.Background()
		if unixNano&1 == 1 {
			ctx = tracedContext
		}
		want := accessLineIn(ctx, &e)
		direct, handled := directLines(ctx, &e)
		if got := append(direct, handled...); !bytes.Equal(got, want) {
			t.Fatalf("wrote %q directly and %q through the handler; want %q", direct, handled, want)
		}
	})
}

// TestAccessLogOutputLevel: a logger that leaves out info lines writes no access log,
// to its writer either.
func TestAccessLogOutputLevel(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	l := newAccessLog(slog.New(slog.NewJSONHandler(&b, &slog.HandlerOptions{Level: slog.LevelWarn})))
	l.out = &b
	l.write(context.Background(), &accessEntry{at: time.Unix(0, 0), method: "GET", path: "/", route: "unmatched", status: 404})
	if b.Len() != 0 {
		t.Errorf("a warn-level logger wrote %q", b.Bytes())
	}
}
