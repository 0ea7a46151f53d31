package webhook

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
)

// Resolver looks up the addresses of a host name; *net.Resolver implements it. Tests
// inject fakes, including one that answers differently on each call (DNS rebinding).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// ErrAddressNotAllowed is wrapped by every refusal of an address, at registration and
// at connect time.
var ErrAddressNotAllowed = errors.New("address not allowed")

// AddressError is the refusal of one address: loopback, private, link-local (which
// includes the cloud metadata address), unspecified, multicast, shared (CGNAT),
// reserved or documentation space, or an IPv6 form that embeds such an IPv4 address.
type AddressError struct {
	Addr netip.Addr
}

func (e *AddressError) Error() string {
	return fmt.Sprintf("address %s is not allowed: webhooks are only sent to public addresses", e.Addr)
}

// Unwrap lets errors.Is(err, ErrAddressNotAllowed) match.
func (e *AddressError) Unwrap() error { return ErrAddressNotAllowed }

// CheckAddr returns nil when a is a public unicast address that webhooks may be sent
// to, and an *AddressError otherwise.
func CheckAddr(a netip.Addr) error {
	if !isPublic(a) {
		return &AddressError{Addr: a}
	}
	return nil
}

// refused4 are IPv4 ranges that netip's predicates do not cover and that must never
// be reached: "this network", shared address space (CGNAT), IETF protocol
// assignments, the documentation networks, benchmarking, and the reserved 240/4
// (which includes the limited broadcast address).
var refused4 = prefixes(
	"0.0.0.0/8", "100.64.0.0/10", "192.0.0.0/24", "192.0.2.0/24", "198.18.0.0/15",
	"198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4",
)

// global6 is the IPv6 global unicast space; everything outside it (loopback,
// unspecified, IPv4-compatible ::/96, unique local fc00::/7, link-local fe80::/10,
// site-local fec0::/10, multicast ff00::/8, discard 100::/64) is refused, apart
// from the embeddings below.
var global6 = netip.MustParsePrefix("2000::/3")

// refused6 are parts of the global space that do not name one public host: Teredo
// and ORCHID (2001::/23 holds both), documentation, and the NAT64 local-use prefix.
var refused6 = prefixes("2001::/23", "2001:db8::/32", "64:ff9b:1::/48")

// Prefixes whose addresses carry an IPv4 address that is what the packet reaches: the
// well-known NAT64 prefix (last 32 bits) and 6to4 (bits 16–47).
var (
	nat64 = netip.MustParsePrefix("64:ff9b::/96")
	sixTo = netip.MustParsePrefix("2002::/16")
)

func prefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// isPublic implements CheckAddr.
func isPublic(a netip.Addr) bool {
	if !a.IsValid() || a.Zone() != "" {
		return false
	}
	a = a.Unmap() // ::ffff:127.0.0.1 is 127.0.0.1
	if a.Is6() {
		b := a.As16()
		switch {
		case nat64.Contains(a):
			return isPublic(netip.AddrFrom4([4]byte(b[12:16])))
		case sixTo.Contains(a):
			return isPublic(netip.AddrFrom4([4]byte(b[2:6])))
		case !global6.Contains(a):
			return false
		}
		for _, p := range refused6 {
			if p.Contains(a) {
				return false
			}
		}
		return true
	}
	if a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsMulticast() || a.IsUnspecified() || a.IsInterfaceLocalMulticast() {
		return false
	}
	for _, p := range refused4 {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// numericHost reports whether host (lowercase, no brackets) ends in a number, the way
// WHATWG URL parsers and inet_aton decide to read a host as an IPv4 address: its last
// label is all digits or a 0x hexadecimal number. Such a host is acceptable only as a
// canonical dotted-decimal address; shorthand, octal, hexadecimal and 32-bit decimal
// forms (0x7f000001, 2130706433, 017700000001, 127.1) are refused, because resolvers
// and libraries disagree on what they mean.
func numericHost(host string) bool {
	host = strings.TrimSuffix(host, ".")
	last := host[strings.LastIndexByte(host, '.')+1:]
	if last == "" {
		return false
	}
	if hex, ok := strings.CutPrefix(last, "0x"); ok {
		return strings.Trim(hex, "0123456789abcdef") == ""
	}
	return strings.Trim(last, "0123456789") == ""
}
