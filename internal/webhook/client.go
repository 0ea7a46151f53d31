package webhook

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// Timeout bounds one delivery attempt: connecting, TLS, sending the body and reading
// the answer (CONTRACT §5).
const Timeout = 10 * time.Second

// MaxResponseBytes is how much of a receiver's answer is read; the rest is dropped.
const MaxResponseBytes = 64 << 10

// ClientOptions configures NewClient.
type ClientOptions struct {
	// AllowPrivate turns the connect-time address checks off (tests, development).
	AllowPrivate bool
	// Resolver looks up host names at connect time; nil is net.DefaultResolver.
	Resolver Resolver
	// Timeout is the whole-request timeout; zero is Timeout.
	Timeout time.Duration
}

// NewClient returns the HTTP client that sends webhooks. It never uses a proxy from
// the environment, never follows a redirect (the 3xx answer is returned, and the
// dispatcher counts it as a failure), and times out after Timeout. Unless
// AllowPrivate, it refuses at connect time every address that CheckAddr refuses: it
// resolves the host itself, skips refused addresses, dials the remaining ones by IP,
// and checks the socket's actual destination once more just before connecting. A host
// that passed CheckURL and later resolves to a private address (DNS rebinding) is
// therefore never reached. The refusal error wraps ErrAddressNotAllowed.
func NewClient(o ClientOptions) *http.Client {
	if o.Timeout <= 0 {
		o.Timeout = Timeout
	}
	g := &guardedDialer{allowPrivate: o.AllowPrivate, resolver: o.Resolver}
	if g.resolver == nil {
		g.resolver = net.DefaultResolver
	}
	g.dialer = net.Dialer{Timeout: o.Timeout, KeepAlive: 30 * time.Second}
	if !o.AllowPrivate {
		g.dialer.Control = controlAddr
	}
	transport := &http.Transport{
		Proxy:                  nil,
		DialContext:            g.DialContext,
		ForceAttemptHTTP2:      true,
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    o.Timeout,
		ResponseHeaderTimeout:  o.Timeout,
		ExpectContinueTimeout:  time.Second,
		MaxIdleConns:           256,
		MaxIdleConnsPerHost:    64,
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: MaxResponseBytes,
	}
	return &http.Client{
		Transport: transport,
		Timeout:   o.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// guardedDialer resolves, filters and dials addresses itself, so that the address
// checked is the address dialled.
type guardedDialer struct {
	allowPrivate bool
	resolver     Resolver
	dialer       net.Dialer
}

// DialContext dials address ("host:port") on one of the host's allowed addresses, in
// the resolver's order.
func (g *guardedDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, portText, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	port, err := net.LookupPort(network, portText)
	if err != nil {
		return nil, err
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else if addrs, err = g.resolver.LookupNetIP(ctx, "ip", host); err != nil {
		return nil, err
	}
	if len(addrs) == 0 {
		return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
	}
	var errs []error
	for _, a := range addrs {
		if !g.allowPrivate {
			if err := CheckAddr(a); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		conn, err := g.dialer.DialContext(ctx, network, netip.AddrPortFrom(a.Unmap(), uint16(port)).String())
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, errors.Join(errs...)
}

// controlAddr is the dialer's last check, on the destination the socket is about to
// connect to.
func controlAddr(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("webhook: cannot check destination %q: %w", address, ErrAddressNotAllowed)
	}
	return CheckAddr(ap.Addr())
}
