package config

import (
	"net/url"
	"path/filepath"
	"strings"
)

// conveniences decides the development identity provider, the development PKI and
// the master key's origin from SKYGATE_ENV. Only development enables a convenience by
// default; sandbox, which partners reach, takes one only when it is enabled explicitly;
// production refuses them even then.
func (l *loader) conveniences(c *Config) {
	idp := devConvenience{
		variable: "SKYGATE_DEV_IDP", what: "the development identity provider",
		external: "SKYGATE_OIDC_ISSUER", externalSet: c.OIDCIssuer != "",
		howExternal: "set SKYGATE_OIDC_ISSUER and SKYGATE_OIDC_CLIENT_ID (your identity provider)",
		risk:        "anyone who reaches the service can sign in as an invented employee with admin over every account",
	}
	c.EnableDevIdP = l.devConvenience(c.Env, idp)
	pki := devConvenience{
		variable: "SKYGATE_DEV_PKI", what: "the development PKI",
		external: "SKYGATE_TLS_CERT", externalSet: c.TLSCert != "" || c.TLSKey != "" || c.ClientCA != "",
		howExternal: "set SKYGATE_TLS_CERT, SKYGATE_TLS_KEY and SKYGATE_CLIENT_CA (your CA's files)",
		risk:        "its CA key sits on the disk, so whoever reads SKYGATE_DATA_DIR/pki can issue client certificates",
	}
	c.EnableDevPKI = l.devConvenience(c.Env, pki)
	if c.MasterKey == nil && c.Env != EnvDevelopment && strings.TrimSpace(l.getenv("SKYGATE_MASTER_KEY")) == "" {
		l.fail("SKYGATE_MASTER_KEY", "is required in %s (only development generates one into the data dir): set 32 random bytes, e.g. `openssl rand -hex 32`; a service that ran before with a generated key keeps it in SKYGATE_DATA_DIR/master.key", c.Env)
	}
}

// devConvenience is a development convenience and the external setting it replaces.
type devConvenience struct {
	variable, what string
	// external names the variable of the real thing; externalSet says it is set.
	external    string
	externalSet bool
	howExternal string
	risk        string
}

// devConvenience returns whether d is enabled in env, reporting the combinations that
// are refused: an external setting together with d, d in production, and neither.
func (l *loader) devConvenience(env string, d devConvenience) bool {
	on := l.boolean(d.variable, env == EnvDevelopment && !d.externalSet)
	if on && env == EnvProduction {
		l.fail(d.variable, "is refused in production, even set true (%s: %s): unset it and %s", d.what, d.risk, d.howExternal)
		on = false
	}
	switch {
	case on && d.externalSet:
		l.fail(d.variable, "conflicts with %s: set one of them", d.external)
	case !on && !d.externalSet && env == EnvProduction:
		l.fail(d.external, "is required: production refuses %s; %s", d.what, d.howExternal)
	case !on && !d.externalSet && env == EnvSandbox:
		l.fail(d.external, "is required in sandbox, which partners reach: %s, or set %s=true to accept %s (%s)", d.howExternal, d.variable, d.what, d.risk)
	case !on && !d.externalSet:
		l.fail(d.variable, "is false, so %s is required: %s", d.external, d.howExternal)
	}
	return on
}

// refuseWeak reports the settings production refuses although they parse: a guessable
// master key, plain http where tokens and login codes travel, webhooks into private
// networks, and the development PKI's files.
func (l *loader) refuseWeak(c *Config) {
	if c.MasterKey != nil && WeakMasterKey(c.MasterKey) {
		l.fail("SKYGATE_MASTER_KEY", "is too regular for production (fewer than 16 distinct byte values, or the same step between every two consecutive bytes, as the published test key 000102…1f): set 32 random bytes, e.g. `openssl rand -hex 32`")
	}
	if u, err := url.Parse(c.PublicURL); err == nil && u.Scheme == "http" {
		l.fail("SKYGATE_PUBLIC_URL", "must be https in production (tokens name it as issuer and audience): set https://…")
	}
	if c.WebhookPrivate {
		l.fail("SKYGATE_WEBHOOK_ALLOW_PRIVATE", "is refused in production (partners' webhooks would reach the service's own network): unset it")
	}
	for _, r := range c.AdminRedirects {
		if u, err := url.Parse(r); err != nil || u.Scheme != "https" {
			l.fail("SKYGATE_ADMIN_REDIRECT_URIS", "entry %q is not https (the default derives from SKYGATE_PUBLIC_URL): production sends login codes to https URIs only", r)
		}
	}
	pki := filepath.Join(c.DataDir, "pki")
	for _, f := range []struct{ name, path string }{
		{"SKYGATE_TLS_CERT", c.TLSCert}, {"SKYGATE_TLS_KEY", c.TLSKey}, {"SKYGATE_CLIENT_CA", c.ClientCA}, {"SKYGATE_CLIENT_CA_KEY", c.ClientCAKey},
	} {
		if f.path != "" && within(pki, f.path) {
			l.fail(f.name, "names a file of the development PKI (%s): production refuses it; set your CA's files", pki)
		}
	}
}

// WeakMasterKey reports whether key is too regular to have come from a random source:
// fewer than 16 distinct byte values among its 32 (all zero, one repeated byte, a
// pattern shorter than 16 bytes repeated), or the same step between every two
// consecutive bytes (a counting sequence such as the tests' 000102…1f). 32 random
// bytes hold about 30 distinct values; either rule refuses them with a probability far
// below 2⁻¹⁰⁰.
func WeakMasterKey(key []byte) bool {
	var seen [256]bool
	distinct := 0
	for _, b := range key {
		if !seen[b] {
			seen[b] = true
			distinct++
		}
	}
	if distinct < 16 {
		return true
	}
	for i := 2; i < len(key); i++ {
		if key[i]-key[i-1] != key[1]-key[0] {
			return false
		}
	}
	return true
}

// within reports whether path names dir or a file below it, comparing absolute,
// cleaned paths (symbolic links are not resolved; serve also refuses a certificate
// issued by the development CA, wherever its file lies).
func within(dir, path string) bool {
	d, err1 := filepath.Abs(dir)
	p, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(d, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
