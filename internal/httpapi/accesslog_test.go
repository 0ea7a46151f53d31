package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate/internal/oauth"
	"github.com/skygate/skygate/internal/telemetry"
)

// accessLine returns the line that an access log on a JSON logger writes for e.
func accessLine(e *accessEntry) []byte {
	return accessLineIn(context.Background(), e)
}

// accessLineIn returns the line that an access log on a JSON logger that adds trace
// ids (telemetry.LogHandler) writes for e, of a request whose context is ctx.
func accessLineIn(ctx context.Context, e *accessEntry) []byte {
	var b bytes.Buffer
	newAccessLog(slog.New(telemetry.LogHandler(slog.NewJSONHandler(&b, nil)))).write(ctx, e)
	return b.Bytes()
}

// decodeLine parses one access-log line, failing the test when it is not one JSON
// object followed by a newline.
func decodeLine(tb testing.TB, line []byte) map[string]any {
	tb.Helper()
	if !bytes.HasSuffix(line, []byte("\n")) || bytes.Count(line, []byte("\n")) != 1 {
		tb.Fatalf("not one line: %q", line)
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		tb.Fatalf("not JSON: %v: %q", err, line)
	}
	return m
}

// TestAccessLine: every field in slog's JSON shape, the optional ones only when known,
// and hostile paths still give one valid JSON line that says what was asked.
func TestAccessLine(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 24, 2, 55, 8, 123456789, time.FixedZone("UZT", 5*3600))
	base := accessEntry{at: at, method: "GET", path: "/v2/catalog/lounges", route: "GET /v2/catalog/lounges",
		status: 200, bytes: 2424, elapsed: 184567 * time.Nanosecond, requestID: "req-1"}
	for _, tc := range []struct {
		name string
		edit func(e *accessEntry)
		want map[string]string // field → its JSON text as decoded by encoding/json
		not  []string
	}{
		{"anonymous", func(*accessEntry) {}, map[string]string{
			"time": "2026-11-23T21:55:08.123456789Z", "level": "INFO", "msg": "request", "method": "GET",
			"path": "/v2/catalog/lounges", "route": "GET /v2/catalog/lounges", "status": "200", "bytes": "2424",
			"duration_ms": "0.184", "request_id": "req-1", "source": "",
		}, []string{"account_id", "sub"}},
		{"IPv4 source", func(e *accessEntry) { e.source = netip.MustParseAddr("192.0.2.7") },
			map[string]string{"source": "192.0.2.7"}, nil},
		{"IPv6 source", func(e *accessEntry) { e.source = netip.MustParseAddr("2001:db8::7") },
			map[string]string{"source": "2001:db8::7"}, nil},
		{"zoned source", func(e *accessEntry) { e.source = netip.MustParseAddr(`fe80::1%eth"0\`) },
			map[string]string{"source": "fe80::1"}, nil},
		{"partner", func(e *accessEntry) { e.claims = &oauth.Claims{AccountID: "acc-1", Subject: "sk_client"} },
			map[string]string{"account_id": "acc-1", "sub": "sk_client"}, nil},
		{"employee", func(e *accessEntry) { e.claims = &oauth.Claims{Subject: "emp@example.com"} },
			map[string]string{"sub": "emp@example.com"}, []string{"account_id"}},
		{"whole milliseconds", func(e *accessEntry) { e.elapsed = 3 * time.Millisecond },
			map[string]string{"duration_ms": "3"}, nil},
		{"trailing zeros", func(e *accessEntry) { e.elapsed = 1500 * time.Microsecond },
			map[string]string{"duration_ms": "1.5"}, nil},
		{"hostile method (HTTP/2 passes any :method without control characters)", func(e *accessEntry) { e.method = `GE"T","sub":"x\` },
			map[string]string{"method": `GE"T","sub":"x\`}, []string{"sub"}},
		{"hostile path", func(e *accessEntry) { e.path = "/a\"b\\c\n\r\t\x00\x1f\u2028\u2029</script>é\xff" },
			map[string]string{"path": "/a\"b\\c\n\r\t\x00\x1f\u2028\u2029</script>é\ufffd"}, nil},
		{"method HTTP defines", func(e *accessEntry) { e.method = "DELETE" }, map[string]string{"method": "DELETE"}, nil},
		{"invented method", func(e *accessEntry) { e.method = "PROPFIND" }, map[string]string{"method": "PROPFIND"}, nil},
		{"lower-case method", func(e *accessEntry) { e.method = "get" }, map[string]string{"method": "get"}, nil},
		{"empty method", func(e *accessEntry) { e.method = "" }, map[string]string{"method": ""}, nil},
		{"path of the ServeMux route", func(e *accessEntry) { e.path, e.route = "/v2/catalog/lounges/x", "GET /v2/catalog/lounges/{id}" },
			map[string]string{"path": "/v2/catalog/lounges/x", "route": "GET /v2/catalog/lounges/{id}"}, nil},
		{"empty path", func(e *accessEntry) { e.path = "" }, map[string]string{"path": ""}, nil},
		{"path ending the route at a character", func(e *accessEntry) { e.path, e.route = "/café", "GET /café" },
			map[string]string{"path": "/café"}, nil},
		{"path ending the route inside a character", func(e *accessEntry) { e.path, e.route = "\xa9", "GET /café" },
			map[string]string{"path": "\ufffd"}, nil},
		{"path ending the route after a character's first byte", func(e *accessEntry) { e.path, e.route = "\xa9/x", "GET /caf\xc3\xa9/x" },
			map[string]string{"path": "\ufffd/x"}, nil},
		{"path ending unmatched", func(e *accessEntry) { e.path, e.route = "matched", "unmatched" },
			map[string]string{"path": "matched", "route": "unmatched"}, nil},
		{"hostile claims", func(e *accessEntry) {
			e.claims = &oauth.Claims{AccountID: `acc","sub":"x\`, Subject: "s\n\x00\u2028é\xff</script>"}
		}, map[string]string{"account_id": `acc","sub":"x\`, "sub": "s\n\x00\u2028é\ufffd</script>"}, nil},
		{"hostile subject, plain account", func(e *accessEntry) { e.claims = &oauth.Claims{AccountID: "acc-1", Subject: `sk"1`} },
			map[string]string{"account_id": "acc-1", "sub": `sk"1`}, nil},
		{"plain subject, hostile account", func(e *accessEntry) { e.claims = &oauth.Claims{AccountID: "acc\t1", Subject: "sk_1"} },
			map[string]string{"account_id": "acc\t1", "sub": "sk_1"}, nil},
		{"employee with a non-ASCII subject", func(e *accessEntry) { e.claims = &oauth.Claims{Subject: "Ада@example.com"} },
			map[string]string{"sub": "Ада@example.com"}, []string{"account_id"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := base
			tc.edit(&e)
			line := accessLine(&e)
			m := decodeLine(t, line)
			for k, want := range tc.want {
				got, ok := m[k]
				if !ok {
					t.Errorf("%s missing in %s", k, line)
					continue
				}
				if jsonText(got) != want {
					t.Errorf("%s = %v, want %q", k, got, want)
				}
			}
			for _, k := range tc.not {
				if _, ok := m[k]; ok {
					t.Errorf("%s present in %s", k, line)
				}
			}
			checkEscaped(t, line, &e)
		})
	}
}

// jsonText is a decoded string as it is, and any other value as JSON.
func jsonText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// FuzzAccessLine: whatever the request's method, path and X-Request-ID, the line is one
// JSON object whose strings decode to what was logged (invalid UTF-8 bytes as U+FFFD).
func FuzzAccessLine(f *testing.F) {
	for _, s := range []string{"/v2/catalog", "\"\\\n\x00", "\u2028é\xff\xfe", "</script>", ""} {
		f.Add("GET", s, "req-1")
	}
	f.Fuzz(func(t *testing.T, method, path, supplied string) {
		id := requestID(supplied) // as ServeHTTP takes a client's X-Request-ID
		e := accessEntry{at: time.Unix(0, 0), method: method, path: path, route: "unmatched", status: 404,
			requestID: id, claims: &oauth.Claims{Subject: path}}
		m := decodeLine(t, accessLine(&e))
		for k, want := range map[string]string{"method": method, "path": path, "request_id": id, "sub": path} {
			if got := m[k]; got != string([]rune(want)) {
				t.Fatalf("%s = %q, want %q", k, got, want)
			}
		}
	})
}

// checkEscaped fails unless the line's method, path, account_id and sub are JSON
// strings that decode to what was logged (invalid UTF-8 bytes as U+FFFD), with every
// control character and the line and paragraph separators escaped.
func checkEscaped(tb testing.TB, line []byte, e *accessEntry) {
	tb.Helper()
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		tb.Fatalf("not JSON: %v: %q", err, line)
	}
	want := map[string]string{"method": e.method, "path": e.path}
	if c := e.claims; c != nil {
		want["sub"] = c.Subject
		if c.AccountID != "" {
			want["account_id"] = c.AccountID
		}
	}
	for k, v := range want {
		text := string(raw[k])
		var got string
		if err := json.Unmarshal(raw[k], &got); err != nil || got != string([]rune(v)) {
			tb.Errorf("%s written as %s, want %q", k, text, string([]rune(v)))
		}
		if strings.ContainsFunc(text, func(r rune) bool { return r < 0x20 || r == '\u2028' || r == '\u2029' }) {
			tb.Errorf("%s written with a raw control character or line separator: %q", k, text)
		}
	}
}

// FuzzAccessLineFields: whatever the method, claims and route, and a path that ends
// the route at any byte, the fields are escaped as checkEscaped asks.
func FuzzAccessLineFields(f *testing.F) {
	for _, s := range []struct {
		method, routePath string
		cut               uint8
		account, sub      string
	}{
		{"GET", "/v2/catalog/fast-tracks", 0, "0190f3c2-7d52-7bd6-a3c4-0a1b2c3d4e5f", "skg_4dqitpyozt3fgpf2jqgi2j6b"},
		{"DELETE", "/v2/webhooks/{id}", 3, "", "emp@example.com"},
		{"get", "/café", 4, "a\"b", "\xff\u2028"},
		{"G\"ET", "/é/x", 3, "", ""},
	} {
		f.Add(s.method, s.routePath, s.cut, s.account, s.sub)
	}
	f.Fuzz(func(t *testing.T, method, routePath string, cut uint8, account, sub string) {
		route := "GET " + routePath
		path := route[int(cut)%(len(route)+1):]
		e := accessEntry{at: time.Unix(0, 0), method: method, path: path, route: route, status: 200,
			requestID: "req-1", claims: &oauth.Claims{AccountID: account, Subject: sub}}
		line := accessLine(&e)
		m := decodeLine(t, line)
		if got := m["route"]; got != string([]rune(route)) {
			t.Fatalf("route = %q, want %q", got, route)
		}
		checkEscaped(t, line, &e)
	})
}

// TestAccessLogLevel: a logger that leaves out info lines writes no access log.
func TestAccessLogLevel(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	l := newAccessLog(slog.New(slog.NewJSONHandler(&b, &slog.HandlerOptions{Level: slog.LevelWarn})))
	l.write(context.Background(), &accessEntry{at: time.Unix(0, 0), method: "GET", path: "/", route: "unmatched", status: 404})
	if b.Len() != 0 {
		t.Errorf("a warn-level logger wrote %q", b.Bytes())
	}
}
