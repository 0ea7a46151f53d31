package webhook

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestNumericHost(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"127.0.0.1": true, "2130706433": true, "0x7f000001": true, "0x": true, "127.1": true,
		"1.2.3.4.": true, "example.com": false, "1.example.com": false, "example.123a": false,
		"0xg": false, "a.0x1f": true, "localhost": false,
	}
	for host, want := range tests {
		if got := numericHost(host); got != want {
			t.Errorf("numericHost(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	mid := func() float64 { return 0.5 }
	for i, want := range DefaultSchedule {
		got, ok := backoff(DefaultSchedule, DefaultJitter, i+1, mid)
		if !ok || got != want {
			t.Errorf("backoff after attempt %d = %v, %v; want %v", i+1, got, ok, want)
		}
	}
	if _, ok := backoff(DefaultSchedule, DefaultJitter, len(DefaultSchedule)+1, mid); ok {
		t.Error("a retry after the last attempt")
	}
	lo, _ := backoff(DefaultSchedule, 0.1, 2, func() float64 { return 0 })
	hi, _ := backoff(DefaultSchedule, 0.1, 2, func() float64 { return 0.999999 })
	if lo != 270*time.Second || hi < 329*time.Second || hi > 330*time.Second {
		t.Errorf("jitter range of 5 min = [%v, %v], want [4m30s, 5m30s)", lo, hi)
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 3, 14, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		value string
		want  time.Duration
		ok    bool
	}{
		{"120", 2 * time.Minute, true},
		{"0", 0, true},
		{" 30 ", 30 * time.Second, true},
		{now.Add(10 * time.Minute).Format(http.TimeFormat), 10 * time.Minute, true},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0, true},
		{"", 0, false},
		{"-5", 0, false},
		{"soon", 0, false},
	}
	for _, tt := range tests {
		h := http.Header{}
		if tt.value != "" {
			h.Set("Retry-After", tt.value)
		}
		got, ok := retryAfter(h, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("retryAfter(%q) = %v, %v; want %v, %v", tt.value, got, ok, tt.want, tt.ok)
		}
	}
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	wrap := func(err error) error { return &url.Error{Op: "Post", URL: "https://x.example/", Err: err} }
	tests := []struct {
		err  error
		want string
	}{
		{wrap(&AddressError{Addr: netip.MustParseAddr("10.0.0.1")}), "address 10.0.0.1 is not allowed"},
		{wrap(context.DeadlineExceeded), "timed out after 10s"},
		{wrap(&net.DNSError{Name: "x.example", Err: "no such host", IsNotFound: true}), "DNS lookup of x.example failed"},
		{wrap(&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}), "connection refused"},
		{wrap(&net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}), "connection reset"},
		{wrap(errors.New("something odd")), "request failed: something odd"},
	}
	for _, tt := range tests {
		got := describe(tt.err, Timeout)
		if !strings.Contains(got, tt.want) {
			t.Errorf("describe(%v) = %q, want it to contain %q", tt.err, got, tt.want)
		}
		for _, leak := range []string{".go:", "goroutine", "sql"} {
			if strings.Contains(got, leak) {
				t.Errorf("describe(%v) = %q leaks %q", tt.err, got, leak)
			}
		}
	}
	if got := describe(wrap(errors.New(strings.Repeat("x", 500))), Timeout); len(got) > 200 {
		t.Errorf("describe kept %d characters", len(got))
	}
}

func TestControlAddr(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		addr string
		ok   bool
	}{
		{"93.184.216.34:443", true}, {"127.0.0.1:80", false}, {"[::1]:443", false},
		{"[::ffff:127.0.0.1]:443", false}, {"169.254.169.254:80", false}, {"not-an-address", false},
	} {
		err := controlAddr("tcp", tt.addr, nil)
		if (err == nil) != tt.ok {
			t.Errorf("controlAddr(%s) = %v, want ok=%v", tt.addr, err, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrAddressNotAllowed) {
			t.Errorf("controlAddr(%s) error does not wrap ErrAddressNotAllowed: %v", tt.addr, err)
		}
	}
}

func TestClientSettings(t *testing.T) {
	t.Parallel()
	c := NewClient(ClientOptions{})
	tr := c.Transport.(*http.Transport)
	if tr.Proxy != nil {
		t.Error("the client takes a proxy from the environment")
	}
	if c.Timeout != Timeout {
		t.Errorf("timeout = %v, want %v", c.Timeout, Timeout)
	}
	if err := c.CheckRedirect(nil, nil); !errors.Is(err, http.ErrUseLastResponse) {
		t.Errorf("CheckRedirect = %v, want ErrUseLastResponse", err)
	}
	if tr.MaxResponseHeaderBytes != MaxResponseBytes {
		t.Errorf("MaxResponseHeaderBytes = %d", tr.MaxResponseHeaderBytes)
	}
}

func TestStatusError(t *testing.T) {
	t.Parallel()
	for code, want := range map[int]string{
		500: "HTTP 500 Internal Server Error", 302: "HTTP 302 Found: redirects are not followed",
		410: "HTTP 410 Gone: the subscription was deactivated", 599: "HTTP 599",
	} {
		if got := statusError(code); got != want {
			t.Errorf("statusError(%d) = %q, want %q", code, got, want)
		}
	}
}
