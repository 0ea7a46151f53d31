package httpapi

import (
	"context"
	"net/http"
	"net/netip"
	"slices"
	"strings"

	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// source returns the address a request comes from, which the access log reports and
// the token endpoint's per-source limit counts: the TCP peer, or, when the peer is one
// of Deps.Proxies (a reverse proxy), the address that the proxies saw, taken
// from X-Forwarded-For.
//
// Anyone can send X-Forwarded-For, so it counts only from a trusted peer, and only as
// far as trusted proxies vouch for it: each appends the address it received the
// request from, so the list is read from the right, past the trusted proxies' own
// addresses, and the first address that is not a trusted proxy is the source. What a
// client wrote further left is never read. An entry that is not an address ends the
// walk at the last trusted hop. Several X-Forwarded-For fields are one list, in order.
//
// The zero Addr means that the peer is not an IP address (a listener other than TCP).
func (s *Server) source(r *http.Request) netip.Addr {
	peer, _ := parseAddr(r.RemoteAddr)
	trusted := s.deps.Proxies
	if len(trusted) == 0 || !containsAddr(trusted, peer) {
		return peer
	}
	src := peer
	fields := r.Header.Values("X-Forwarded-For")
	for i := len(fields) - 1; i >= 0; i-- {
		list := fields[i]
		for list != "" {
			entry := list
			if j := strings.LastIndexByte(list, ','); j >= 0 {
				entry, list = list[j+1:], list[:j]
			} else {
				list = ""
			}
			entry = strings.TrimSpace(entry)
			if entry == "" {
				continue
			}
			a, ok := parseAddr(entry)
			if !ok {
				return src
			}
			if !containsAddr(trusted, a) {
				return a
			}
			src = a
		}
	}
	return src
}

// parseAddr parses a RemoteAddr or one X-Forwarded-For entry: an address, or an
// address and a port ("192.0.2.7:4711", "[2001:db8::7]:4711"); the zero Addr and false
// when it is neither.
func parseAddr(s string) (netip.Addr, bool) {
	a, err := netip.ParseAddr(s)
	if err != nil {
		ap, err := netip.ParseAddrPort(s)
		if err != nil {
			return netip.Addr{}, false
		}
		a = ap.Addr()
	}
	return plainAddr(a), true
}

// plainAddr drops what would make one host look like several: the IPv4-mapped IPv6
// form of an IPv4 address and an IPv6 zone.
func plainAddr(a netip.Addr) netip.Addr { return a.Unmap().WithZone("") }

// containsAddr reports whether one of prefixes contains a.
func containsAddr(prefixes []netip.Prefix, a netip.Addr) bool {
	return slices.ContainsFunc(prefixes, func(p netip.Prefix) bool { return p.Contains(a) })
}

// addrText is a's text for logs: "" for the zero Addr, as in the access log.
func addrText(a netip.Addr) string {
	if !a.IsValid() {
		return ""
	}
	return a.String()
}

// sourceKey is the per-source rate limit key of an address. An IPv6 address counts as
// its /64: one host, or one customer of a provider, holds a whole /64, whose addresses
// would otherwise each be a fresh allowance.
func sourceKey(a netip.Addr) string {
	if a.Is6() {
		p, _ := a.Prefix(64)
		return "source:" + p.String()
	}
	return "source:" + a.String()
}

// traceSource sets the client.address of the request's server span, when it records,
// to src, the address the request came from as the service reads it (source). The
// tracing middleware (otelhttp) takes it from the first X-Forwarded-For entry, whoever
// sent the field, which any client can write: a trace must not name an address that
// the access log and the rate limits would not.
func traceSource(ctx context.Context, src netip.Addr) {
	if span := trace.SpanFromContext(ctx); span.IsRecording() && src.IsValid() {
		span.SetAttributes(semconv.ClientAddress(src.String()))
	}
}

// traceSecretPath overwrites the url.path of the request's server span, when it
// records, with path, the pattern's path of a route whose path is secret: the tracing
// middleware (otelhttp) records the request's path when the span starts. The span's
// name is the method and pattern already, and otelhttp records no http.target (it
// emits the stable HTTP conventions only).
func traceSecretPath(ctx context.Context, path string) {
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.SetAttributes(semconv.URLPath(path))
	}
}
