package httpapi

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
)

// TestSource: X-Forwarded-For names the source only from a trusted proxy, and only as
// far as trusted proxies vouch for it.
func TestSource(t *testing.T) {
	t.Parallel()
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001:db8:ffff::/48")}
	for _, tc := range []struct {
		name, peer string
		xff        []string
		want       string
	}{
		{"untrusted peer", "192.0.2.7:4711", nil, "192.0.2.7"},
		{"untrusted peer, spoofed header", "192.0.2.7:4711", []string{"198.51.100.1"}, "192.0.2.7"},
		{"untrusted IPv6 peer", "[2001:db8::7]:4711", []string{"198.51.100.1"}, "2001:db8::7"},
		{"IPv4-mapped peer", "[::ffff:192.0.2.7]:4711", nil, "192.0.2.7"},
		{"zoned peer", "[fe80::1%eth0]:4711", nil, "fe80::1"},
		{"peer without a port", "192.0.2.7", nil, "192.0.2.7"},
		{"peer that is no address", "@", nil, "invalid IP"},
		{"trusted proxy without the header", "10.0.0.1:4711", nil, "10.0.0.1"},
		{"trusted proxy", "10.0.0.1:4711", []string{"198.51.100.1"}, "198.51.100.1"},
		{"client's own entries are ignored", "10.0.0.1:4711", []string{"203.0.113.9, 198.51.100.1"}, "198.51.100.1"},
		{"chain of trusted proxies", "10.0.0.1:4711", []string{"203.0.113.9, 198.51.100.1, 10.0.0.3, 10.0.0.2"}, "198.51.100.1"},
		{"fields are one list", "10.0.0.1:4711", []string{"203.0.113.9, 198.51.100.1", "10.0.0.2"}, "198.51.100.1"},
		{"trusted IPv6 proxy", "[2001:db8:ffff::1]:4711", []string{"2001:db8:1::7"}, "2001:db8:1::7"},
		{"entries with ports", "10.0.0.1:4711", []string{"[2001:db8:1::7]:80, 10.0.0.2:443"}, "2001:db8:1::7"},
		{"spaces and empty entries", "10.0.0.1:4711", []string{" 198.51.100.1 ,, "}, "198.51.100.1"},
		{"garbage ends at the last trusted hop", "10.0.0.1:4711", []string{"198.51.100.1, unknown, 10.0.0.2"}, "10.0.0.2"},
		{"only trusted hops", "10.0.0.1:4711", []string{"10.0.0.3, 10.0.0.2"}, "10.0.0.3"},
		{"mapped forwarded address", "10.0.0.1:4711", []string{"::ffff:198.51.100.1"}, "198.51.100.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Server{deps: Deps{Proxies: trusted}}
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tc.peer
			for _, v := range tc.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := s.source(r).String(); got != tc.want {
				t.Errorf("source = %s, want %s", got, tc.want)
			}
		})
	}
	// Without trusted proxies the header never counts.
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "10.0.0.1:4711"
	r.Header.Set("X-Forwarded-For", "198.51.100.1")
	if got := (&Server{}).source(r).String(); got != "10.0.0.1" {
		t.Errorf("no trusted proxies: source = %s", got)
	}
}

func TestSourceKey(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{
		"192.0.2.7":               "source:192.0.2.7",
		"2001:db8:1:2:3:4:5:6":    "source:2001:db8:1:2::/64",
		"2001:db8:1:2:ffff::9":    "source:2001:db8:1:2::/64",
		"::ffff:192.0.2.7":        "source:192.0.2.7",
		"2001:db8:1:3:3:4:5:6%e0": "source:2001:db8:1:3::/64",
	} {
		if got := sourceKey(plainAddr(netip.MustParseAddr(addr))); got != want {
			t.Errorf("sourceKey(%s) = %s, want %s", addr, got, want)
		}
	}
}

// lockedBuffer is an io.Writer that tests read after the server wrote to it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestAccessLogSource: every access-log line says where the request came from: the
// peer, whatever X-Forwarded-For it sent, unless the peer is a trusted proxy.
func TestAccessLogSource(t *testing.T) {
	t.Parallel()
	var access lockedBuffer
	none := http.NotFoundHandler()
	s := NewServer(Deps{TokenEndpoint: none, JWKS: none, Discovery: none, AccessLog: slog.New(slog.NewJSONHandler(&access, nil)),
		Proxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}})
	for _, tc := range []struct{ peer, xff, want string }{
		{"192.0.2.7:4711", "", "192.0.2.7"},
		{"192.0.2.7:4711", "198.51.100.1", "192.0.2.7"},
		{"10.0.0.1:4711", "203.0.113.9, 198.51.100.1", "198.51.100.1"},
		{"[2001:db8::7]:4711", "", "2001:db8::7"},
	} {
		r := httptest.NewRequest("GET", "/healthz", nil)
		r.RemoteAddr = tc.peer
		if tc.xff != "" {
			r.Header.Set("X-Forwarded-For", tc.xff)
		}
		before := len(access.String())
		s.ServeHTTP(httptest.NewRecorder(), r)
		m := decodeLine(t, []byte(access.String()[before:]))
		if m["source"] != tc.want {
			t.Errorf("peer %s, X-Forwarded-For %q: source %v, want %s", tc.peer, tc.xff, m["source"], tc.want)
		}
	}
	if n := strings.Count(access.String(), "\n"); n != 4 {
		t.Errorf("%d lines for 4 requests", n)
	}
}
