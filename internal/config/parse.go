package config

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"math"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// masterKey accepts 32 bytes as 64 hex digits or standard/URL base64.
func (l *loader) masterKey(name string) []byte {
	v := strings.TrimSpace(l.getenv(name))
	if v == "" {
		return nil
	}
	if k, err := ParseMasterKey(v); err == nil {
		return k
	}
	l.fail(name, "must be 32 bytes as 64 hex digits or base64")
	return nil
}

// ParseMasterKey decodes a 32-byte key written as 64 hex digits or base64 (standard or
// URL alphabet, padded or not).
func ParseMasterKey(v string) ([]byte, error) {
	v = strings.TrimSpace(v)
	if k, err := hex.DecodeString(v); err == nil && len(k) == 32 {
		return k, nil
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if k, err := enc.DecodeString(v); err == nil && len(k) == 32 {
			return k, nil
		}
	}
	return nil, errors.New("master key must be 32 bytes as 64 hex digits or base64")
}

// roleMap parses "group=role,group=role".
func (l *loader) roleMap(name string) map[string]string {
	v := strings.TrimSpace(l.getenv(name))
	if v == "" {
		return nil
	}
	m := map[string]string{}
	for _, pair := range strings.Split(v, ",") {
		g, r, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if !ok || strings.TrimSpace(g) == "" || strings.TrimSpace(r) == "" {
			l.fail(name, "entries must be group=role, got %q", pair)
			continue
		}
		m[strings.TrimSpace(g)] = strings.TrimSpace(r)
	}
	return m
}

// prefixes parses a comma or space separated list of CIDRs or single addresses.
func (l *loader) prefixes(name string) []netip.Prefix {
	var out []netip.Prefix
	for _, f := range strings.Fields(strings.ReplaceAll(l.getenv(name), ",", " ")) {
		if p, err := netip.ParsePrefix(f); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			l.fail(name, "has an invalid CIDR or address %q", f)
			continue
		}
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out
}

// float parses a non-negative number.
func (l *loader) float(name string, def float64) float64 {
	v := strings.TrimSpace(l.getenv(name))
	if v == "" {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		l.fail(name, "must be a non-negative number, got %q", v)
		return def
	}
	return f
}

// integer parses a positive integer.
func (l *loader) integer(name string, def int) int {
	v := strings.TrimSpace(l.getenv(name))
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		l.fail(name, "must be a positive integer, got %q", v)
		return def
	}
	return n
}

// MaxShutdownWait bounds SKYGATE_SHUTDOWN_DELAY and SKYGATE_SHUTDOWN_TIMEOUT. A
// supervisor kills a process that takes longer to stop well before (Kubernetes waits
// 30 s unless told otherwise), so a larger value is a mistake of unit.
const MaxShutdownWait = 10 * time.Minute

// wait parses a duration from least to MaxShutdownWait.
func (l *loader) wait(name string, def, least time.Duration) time.Duration {
	v := strings.TrimSpace(l.getenv(name))
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < least || d > MaxShutdownWait {
		l.fail(name, "must be a Go duration from %s to %s, such as 5s, got %q", least, MaxShutdownWait, v)
		return def
	}
	return d
}
