package httpapi

import (
	"context"
	"encoding/hex"
	"io"
	"log/slog"
	"math"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/skygate/skygate/internal/oauth"
)

// accessLog writes the access log: one line per request, at info level, through a
// slog.Logger (cmd/skygate gives the service's JSON logger), so that its lines have the
// shape of every other log line:
//
//	{"time":"2026-11-24T02:55:08.123456789Z","level":"INFO","msg":"request","method":"GET",
//	 "path":"/v2/catalog/lounges","route":"GET /v2/catalog/lounges","status":200,
//	 "bytes":2424,"duration_ms":0.184,"request_id":"…","source":"192.0.2.7",
//	 "account_id":"…","sub":"…"}
//
// time is when the request ended, by the server's clock, in UTC; duration_ms has
// microsecond precision; source is the address the request came from (Server.source),
// "" when it is not an IP address; account_id is there for B2B tokens only, sub for
// every authenticated request. When the request is traced (its context holds a valid
// span context), the line ends with the trace_id and span_id of its server span, as
// telemetry.LogHandler adds them to every line.
type accessLog struct {
	log *slog.Logger
	// out, when not nil, is the writer of log's handler, a slog.NewJSONHandler without
	// ReplaceAttr, AddSource, attributes or groups, perhaps wrapped by
	// telemetry.LogHandler (Deps.AccessLogOutput): write then encodes the line of an
	// ordinary request itself (appendLine) and writes it there.
	out io.Writer
	// traced: log's handler adds the trace ids of a request's span (Deps.Traced), and so
	// must appendLine.
	traced bool
}

// newAccessLog returns the access log written to log, or nil (no access log) for a
// nil log.
func newAccessLog(log *slog.Logger) *accessLog {
	if log == nil {
		return nil
	}
	return &accessLog{log: log}
}

// accessEntry is what one line reports. claims is nil for a request that was not
// authenticated; span is the request's span context, which write sets from its context
// when the log is traced.
type accessEntry struct {
	at                  time.Time
	method, path, route string
	status              int
	bytes               int64
	elapsed             time.Duration
	requestID           string
	source              netip.Addr
	claims              *oauth.Claims
	span                trace.SpanContext
}

// write writes e's line, unless the logger's level leaves out info lines.
func (l *accessLog) write(ctx context.Context, e *accessEntry) {
	h := l.log.Handler()
	if !h.Enabled(ctx, slog.LevelInfo) {
		return
	}
	if l.out != nil && l.traced {
		e.span = trace.SpanContextFromContext(ctx)
	}
	if l.out != nil && l.writeDirect(e) {
		return
	}
	// A record of its own rather than Logger.Info, for the time of the server's clock.
	rec := slog.NewRecord(e.at.UTC(), slog.LevelInfo, "request", 0)
	rec.AddAttrs(
		slog.String("method", e.method),
		slog.String("path", e.path),
		slog.String("route", e.route),
		slog.Int("status", e.status),
		slog.Int64("bytes", e.bytes),
		slog.Float64("duration_ms", durationMillis(e.elapsed)),
		slog.String("request_id", e.requestID),
		slog.String("source", addrText(e.source.WithZone(""))),
	)
	if c := e.claims; c != nil {
		if c.AccountID != "" {
			rec.AddAttrs(slog.String("account_id", c.AccountID))
		}
		rec.AddAttrs(slog.String("sub", c.Subject))
	}
	_ = h.Handle(ctx, rec)
}

// durationMillis is d in milliseconds with microsecond precision.
func durationMillis(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}

// writeDirect writes e's line to out, when appendLine encodes it, and reports whether
// it did.
func (l *accessLog) writeDirect(e *accessEntry) bool {
	bp := lineBuffers.Get().(*[]byte)
	b, ok := appendLine((*bp)[:0], e)
	if ok {
		_, _ = l.out.Write(b)
	}
	if cap(b) <= 16<<10 { // a line of a long URL is not kept
		*bp = b
		lineBuffers.Put(bp)
	}
	return ok
}

// lineBuffers holds the buffers appendLine encodes into.
var lineBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// appendLine appends e's line to b as slog's JSON handler (without options) writes it,
// wrapped by telemetry.LogHandler when e.span is valid, byte for byte, when every
// string of the line is plain (see plain), the time is set and has four digits of
// year, and the duration is written without an exponent: the line of an ordinary
// request. For any other entry it returns false, and write leaves
// the line to the handler, whose escaping and error text stay the only definition.
// It exists for speed: see docs/decisions/0102-access-log-plain-lines.md.
func appendLine(b []byte, e *accessEntry) ([]byte, bool) {
	at := e.at.UTC()
	ms := durationMillis(e.elapsed)
	source := addrText(e.source.WithZone(""))
	var account, sub string
	if c := e.claims; c != nil {
		account, sub = c.AccountID, c.Subject
	}
	// encoding/json, which slog calls for floats, switches to an exponent outside
	// [1e-6, 1e21).
	if y := at.Year(); at.IsZero() || y < 0 || y >= 10000 || ms != 0 && (math.Abs(ms) < 1e-6 || math.Abs(ms) >= 1e21) ||
		!plain(e.method) || !plain(e.path) || !plain(e.route) || !plain(e.requestID) || !plain(source) ||
		!plain(account) || !plain(sub) {
		return b, false
	}
	b = append(b, `{"time":"`...)
	b = at.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":"INFO","msg":"request","method":"`...)
	b = append(b, e.method...)
	b = append(b, `","path":"`...)
	b = append(b, e.path...)
	b = append(b, `","route":"`...)
	b = append(b, e.route...)
	b = append(b, `","status":`...)
	b = strconv.AppendInt(b, int64(e.status), 10)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, e.bytes, 10)
	b = append(b, `,"duration_ms":`...)
	b = strconv.AppendFloat(b, ms, 'f', -1, 64)
	b = append(b, `,"request_id":"`...)
	b = append(b, e.requestID...)
	b = append(b, `","source":"`...)
	b = append(b, source...)
	b = append(b, '"')
	if e.claims != nil {
		if account != "" {
			b = append(b, `,"account_id":"`...)
			b = append(b, account...)
			b = append(b, '"')
		}
		b = append(b, `,"sub":"`...)
		b = append(b, sub...)
		b = append(b, '"')
	}
	if e.span.IsValid() {
		tid, sid := e.span.TraceID(), e.span.SpanID()
		b = append(b, `,"trace_id":"`...)
		b = hex.AppendEncode(b, tid[:])
		b = append(b, `","span_id":"`...)
		b = hex.AppendEncode(b, sid[:])
		b = append(b, '"')
	}
	return append(b, "}\n"...), true
}

// plain reports whether s is printable ASCII without '"' and '\\': the strings a JSON
// encoder writes as they are.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c > '~' || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
