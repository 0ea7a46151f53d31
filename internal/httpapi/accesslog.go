package httpapi

import (
	"context"
	"log/slog"
	"net/netip"
	"time"

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
// every authenticated request.
type accessLog struct {
	log *slog.Logger
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
// authenticated.
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

// write writes e's line, unless the logger's level leaves out info lines.
func (l *accessLog) write(ctx context.Context, e *accessEntry) {
	h := l.log.Handler()
	if !h.Enabled(ctx, slog.LevelInfo) {
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
		slog.Float64("duration_ms", float64(e.elapsed.Microseconds())/1000),
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
