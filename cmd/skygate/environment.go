package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"slices"

	"github.com/skygate/skygate/internal/config"
	"github.com/skygate/skygate/internal/devpki"
)

// warnConveniences logs, at every start of a sandbox, each development convenience its
// configuration enabled explicitly, and an external identity provider without a role
// map (every employee is then an admin, SPEC §5.2), with what anyone can do with it.
// (Development enables the conveniences by default; config.Load refuses them in
// production, where the role map is required.)
func warnConveniences(cfg *config.Config, log *slog.Logger) {
	if cfg.Env != config.EnvSandbox {
		return
	}
	if cfg.DevIdP() {
		log.Warn("sandbox runs the development identity provider (SKYGATE_DEV_IDP=true)", "variable", "SKYGATE_DEV_IDP",
			"risk", "anyone who reaches the sandbox can sign in as an invented employee with admin over every account; set SKYGATE_OIDC_ISSUER instead")
	}
	if !cfg.DevIdP() && len(cfg.RoleMap) == 0 {
		log.Warn("sandbox makes every employee an admin (SKYGATE_ROLE_MAP is unset)", "variable", "SKYGATE_ROLE_MAP",
			"risk", "everyone who signs in at SKYGATE_OIDC_ISSUER administers every account; set SKYGATE_ROLE_MAP to give roles by group only")
	}
	if cfg.DevPKI() {
		log.Warn("sandbox uses the development PKI (SKYGATE_DEV_PKI=true)", "variable", "SKYGATE_DEV_PKI",
			"risk", "the CA key sits on the disk under SKYGATE_DATA_DIR/pki: whoever reads it can issue client certificates the mTLS listener accepts; set SKYGATE_TLS_CERT, SKYGATE_TLS_KEY and SKYGATE_CLIENT_CA instead")
	}
}

// warnBeyondLoopback logs, in development, each listener (by the variable that set its
// address) that accepts connections from other machines: development's defaults are
// loopback, so the operator chose it, and its conveniences are then open to the network.
func warnBeyondLoopback(cfg *config.Config, log *slog.Logger, listeners map[string]net.Listener) {
	if cfg.Env != config.EnvDevelopment {
		return
	}
	names := make([]string, 0, len(listeners))
	for name := range listeners {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		addr := listeners[name].Addr().String()
		ap, err := netip.ParseAddrPort(addr)
		if err == nil && ap.Addr().IsLoopback() {
			continue
		}
		log.Warn("development listens beyond loopback", "variable", name, "addr", addr,
			"risk", "the development identity provider, PKI and demo client are reachable from other machines; use sandbox or production for a shared service")
	}
}

// refuseDevCA refuses, for production, a server certificate issued by the development
// CA and a client CA file that holds it: the development CA's key sits in a data dir.
func refuseDevCA(cert tls.Certificate, caPEM []byte) error {
	var errs []error
	for _, der := range cert.Certificate {
		c, err := x509.ParseCertificate(der)
		if err == nil && (c.Issuer.CommonName == devpki.CACommonName || c.Subject.CommonName == devpki.CACommonName) {
			errs = append(errs, errors.New("SKYGATE_TLS_CERT is issued by the development CA (\""+devpki.CACommonName+"\"): production refuses the development PKI; set a certificate of your own CA"))
			break
		}
	}
	for rest := caPEM; ; {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			break
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err == nil && c.Subject.CommonName == devpki.CACommonName {
			errs = append(errs, errors.New("SKYGATE_CLIENT_CA holds the development CA (\""+devpki.CACommonName+"\"): production refuses the development PKI; set your own client CA"))
			break
		}
	}
	return errors.Join(errs...)
}

// warnPublicURL logs a SKYGATE_PUBLIC_URL that names this machine (a loopback host) at
// another port than the plain listener's: discovery, the token issuer and the
// console's sign-in then point where the service does not answer.
func warnPublicURL(cfg *config.Config, log *slog.Logger) {
	u, err := url.Parse(cfg.PublicURL)
	if err != nil {
		return
	}
	_, port, err := net.SplitHostPort(cfg.HTTPAddr)
	if err != nil {
		return
	}
	public := u.Port()
	if public == "" {
		public = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	ip, ipErr := netip.ParseAddr(u.Hostname())
	if (u.Hostname() == "localhost" || ipErr == nil && ip.IsLoopback()) && public != port {
		log.Warn("SKYGATE_PUBLIC_URL names this machine at another port than SKYGATE_HTTP_ADDR", "variable", "SKYGATE_PUBLIC_URL",
			"public_url", cfg.PublicURL, "http_addr", cfg.HTTPAddr,
			"risk", "token issuer, discovery and the console's sign-in point where the service does not listen; unset SKYGATE_PUBLIC_URL to follow SKYGATE_HTTP_ADDR")
	}
}
