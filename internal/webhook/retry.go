package webhook

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// DefaultSchedule is the wait after each failed attempt (CONTRACT §5): after the
// first failure 5 s, then 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. A delivery gets
// len(DefaultSchedule)+1 = 8 attempts over about 28 hours; after the last failure it
// is failed.
var DefaultSchedule = []time.Duration{
	5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour,
	5 * time.Hour, 10 * time.Hour, 10 * time.Hour,
}

// Retry policy defaults.
const (
	// DefaultJitter spreads each wait uniformly over ±10 %, so that deliveries that
	// failed together (a receiver outage) do not come back together.
	DefaultJitter = 0.1
	// DefaultDisableAfter is the 72-hour rule: a subscription whose deliveries have
	// failed for this long with no success in between turns inactive.
	DefaultDisableAfter = 72 * time.Hour
	// DefaultMaxRetryAfter caps how far a receiver's Retry-After may push a retry.
	DefaultMaxRetryAfter = 24 * time.Hour
)

// backoff returns the wait after failed attempt number attempt (1-based) and whether
// another attempt is due at all. rnd returns a number in [0, 1).
func backoff(schedule []time.Duration, jitter float64, attempt int, rnd func() float64) (time.Duration, bool) {
	if attempt < 1 || attempt > len(schedule) {
		return 0, false
	}
	base := schedule[attempt-1]
	if jitter <= 0 {
		return base, true
	}
	factor := 1 + jitter*(2*rnd()-1)
	return time.Duration(float64(base) * factor), true
}

// retryAfter returns the wait that a Retry-After header asks for, in delay-seconds or
// as an HTTP-date relative to now, and false when it is absent or malformed.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(365*24*time.Hour/time.Second) {
			secs = int64(365 * 24 * time.Hour / time.Second)
		}
		return time.Duration(secs) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(t.Sub(now), 0), true
}

// describe turns a failed request into the attempt's partner-safe error text: it
// names what went wrong on the way to the receiver without any of our internals.
func describe(err error, timeout time.Duration) string {
	var (
		addrErr *AddressError
		dnsErr  *net.DNSError
		certErr *tls.CertificateVerificationError
		unknown x509.UnknownAuthorityError
		host    x509.HostnameError
		recErr  tls.RecordHeaderError
		netErr  net.Error
	)
	switch {
	case errors.As(err, &addrErr):
		return addrErr.Error()
	case errors.Is(err, ErrAddressNotAllowed):
		return "the destination address is not allowed: webhooks are only sent to public addresses"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return fmt.Sprintf("timed out after %s", timeout)
	case errors.As(err, &dnsErr):
		return "DNS lookup of " + dnsErr.Name + " failed"
	case errors.As(err, &certErr), errors.As(err, &unknown), errors.As(err, &host):
		return "TLS certificate verification failed"
	case errors.As(err, &recErr):
		return "TLS handshake failed: the receiver did not answer with TLS"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "connection reset by the receiver"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "the receiver's network is unreachable"
	case errors.Is(err, context.Canceled):
		return "the attempt was interrupted by a shutdown"
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		err = urlErr.Err // the method and URL are the partner's own; the cause is enough
	}
	msg := "request failed: " + err.Error()
	if len(msg) > 200 {
		msg = msg[:200]
	}
	return msg
}

// statusError is the attempt error of an HTTP answer that is not a success.
func statusError(code int) string {
	text := http.StatusText(code)
	switch {
	case code >= 300 && code < 400:
		return fmt.Sprintf("HTTP %d %s: redirects are not followed", code, text)
	case code == http.StatusGone:
		return "HTTP 410 Gone: the subscription was deactivated"
	case text != "":
		return fmt.Sprintf("HTTP %d %s", code, text)
	default:
		return fmt.Sprintf("HTTP %d", code)
	}
}
