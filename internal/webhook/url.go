package webhook

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/skygate/skygate"
)

// MaxURLLength is the longest webhook URL accepted, in bytes.
const MaxURLLength = 2048

// resolveTimeout bounds the DNS lookup of a URL's host at registration.
const resolveTimeout = 5 * time.Second

// Policy says which webhook URLs are acceptable (CONTRACT §5). The zero value is the
// production policy: https only, public addresses only, the system resolver.
type Policy struct {
	// AllowHTTP accepts plain http URLs (outside production).
	AllowHTTP bool
	// AllowPrivate turns the address checks off (SKYGATE_WEBHOOK_ALLOW_PRIVATE), so
	// receivers on loopback or a private network can be used in development and tests.
	// URL form checks still apply.
	AllowPrivate bool
	// Resolver looks up host names; nil is net.DefaultResolver.
	Resolver Resolver
}

// CheckURL validates a webhook URL for storing and returns it unchanged. It must be an
// absolute https URL (http when AllowHTTP) of at most MaxURLLength bytes with a host,
// no user information, no fragment and a valid port. A host that ends in a number must
// be a canonical dotted-decimal IPv4 address. Unless AllowPrivate, "localhost" names
// are refused and the host's addresses, literal or every one it resolves to, must be
// public (CheckAddr); a host that does not resolve is refused too. The same address
// checks run again at connect time (NewClient), which defeats DNS rebinding. Every
// refusal is a CodeValidation error on the field "url".
func (p *Policy) CheckURL(ctx context.Context, raw string) (string, error) {
	if msg := p.checkURL(ctx, raw); msg != "" {
		return "", invalid("url", msg)
	}
	return raw, nil
}

// checkURL returns the public message of the first problem with raw, or "".
func (p *Policy) checkURL(ctx context.Context, raw string) string {
	switch {
	case raw == "":
		return "url is required"
	case len(raw) > MaxURLLength:
		return "url must be at most 2048 characters"
	case strings.ContainsFunc(raw, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return "url must not contain spaces or control characters"
	case strings.Contains(raw, "#"):
		return "url must not contain a fragment"
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "url is not a valid URL"
	}
	switch {
	case u.Scheme == "http" && !p.AllowHTTP:
		return "url must use https"
	case u.Scheme != "https" && u.Scheme != "http":
		if p.AllowHTTP {
			return "url must be an absolute http or https URL"
		}
		return "url must be an absolute https URL"
	case u.Opaque != "":
		return "url must be an absolute URL with a host"
	case u.User != nil:
		return "url must not contain user information"
	case u.Hostname() == "":
		return "url must have a host"
	}
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return "url has an invalid port"
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return "url has an invalid port"
	}
	return p.checkHost(ctx, strings.ToLower(u.Hostname()))
}

// checkHost applies the host rules of CheckURL.
func (p *Policy) checkHost(ctx context.Context, host string) string {
	addr, err := netip.ParseAddr(host)
	isLiteral := err == nil
	switch {
	case isLiteral && addr.Zone() != "":
		return "url must not name an IPv6 zone"
	case !isLiteral && numericHost(host):
		return "url host that is a number must be a dotted-decimal IPv4 address such as 192.0.2.1"
	case p.AllowPrivate:
		return ""
	case isLiteral:
		if CheckAddr(addr) != nil {
			return refusedAddress
		}
		return ""
	case host == "localhost" || strings.HasSuffix(strings.TrimSuffix(host, "."), ".localhost"):
		return refusedAddress
	}
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	addrs, err := p.resolver().LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) && dnsErr.IsTimeout || errors.Is(err, context.DeadlineExceeded) {
			return "url host could not be resolved in time; try again"
		}
		return "url host does not resolve to an address"
	}
	for _, a := range addrs {
		if CheckAddr(a) != nil {
			return refusedAddress
		}
	}
	return ""
}

const refusedAddress = "url must not point to a loopback, private, link-local, metadata or other non-public address"

// resolver returns the configured resolver or the system one.
func (p *Policy) resolver() Resolver {
	if p.Resolver != nil {
		return p.Resolver
	}
	return net.DefaultResolver
}

// invalid is a CodeValidation error about one field.
func invalid(field, message string) *skygate.Error {
	return skygate.ValidationError(skygate.FieldError{Field: field, Message: message})
}
