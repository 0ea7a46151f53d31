package config_test

import (
	"crypto/rand"
	"encoding/hex"
	"net"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skygate/skygate/internal/config"
)

// testKey is the tests' published master key: fine in development and sandbox, refused
// in production.
const testKey = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

// productionKey stands for 32 random bytes.
const productionKey = "b1ad6fa6e17b5186653f1686ca68db71afc5ba9f7211d3b55ce4fc15b6d4368d"

// environment returns a valid configuration of env, changed by overrides ("" deletes a
// variable).
func environment(env string, overrides map[string]string) map[string]string {
	m := map[string]string{"SKYGATE_ENV": env}
	switch env {
	case "sandbox":
		m["SKYGATE_MASTER_KEY"] = testKey
		m["SKYGATE_DEV_IDP"], m["SKYGATE_DEV_PKI"] = "true", "true"
	case "production":
		m["SKYGATE_MASTER_KEY"] = productionKey
		m["SKYGATE_PUBLIC_URL"] = "https://api.example"
		m["SKYGATE_OIDC_ISSUER"], m["SKYGATE_OIDC_CLIENT_ID"] = "https://idp.example", "skygate"
		m["SKYGATE_ROLE_MAP"] = "grp-ops=admin"
		m["SKYGATE_DATA_DIR"] = "/var/lib/skygate"
		m["SKYGATE_TLS_CERT"], m["SKYGATE_TLS_KEY"], m["SKYGATE_CLIENT_CA"] = "/etc/skygate/server.pem", "/etc/skygate/server-key.pem", "/etc/skygate/client-ca.pem"
	}
	for k, v := range overrides {
		if v == "" {
			delete(m, k)
			continue
		}
		m[k] = v
	}
	return m
}

// TestEnvironments: what each environment enables by default, takes when enabled
// explicitly, and refuses; each refusal names the variables that get out of it.
func TestEnvironments(t *testing.T) {
	t.Parallel()
	tls := map[string]string{"SKYGATE_TLS_CERT": "/etc/s.pem", "SKYGATE_TLS_KEY": "/etc/k.pem", "SKYGATE_CLIENT_CA": "/etc/ca.pem"}
	oidc := map[string]string{"SKYGATE_OIDC_ISSUER": "https://idp.example", "SKYGATE_OIDC_CLIENT_ID": "skygate"}
	with := func(maps ...map[string]string) map[string]string {
		out := map[string]string{}
		for _, m := range maps {
			for k, v := range m {
				out[k] = v
			}
		}
		return out
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		// idp and pki are the conveniences of a valid configuration; wantErr lists what
		// the error must name (nil: no error).
		idp, pki bool
		wantErr  []string
	}{
		{name: "development defaults", env: environment("development", nil), idp: true, pki: true},
		{name: "development with an identity provider", env: environment("development", oidc), pki: true},
		{name: "development with TLS files", env: environment("development", tls), idp: true},
		{name: "development, dev IdP off explicitly, no issuer", env: environment("development", map[string]string{"SKYGATE_DEV_IDP": "false"}),
			wantErr: []string{"SKYGATE_DEV_IDP", "SKYGATE_OIDC_ISSUER"}},
		{name: "development, dev PKI off explicitly, no files", env: environment("development", map[string]string{"SKYGATE_DEV_PKI": "false"}),
			wantErr: []string{"SKYGATE_DEV_PKI", "SKYGATE_TLS_CERT"}},
		{name: "development, dev IdP and an issuer", env: environment("development", with(oidc, map[string]string{"SKYGATE_DEV_IDP": "true"})),
			wantErr: []string{"SKYGATE_DEV_IDP conflicts with SKYGATE_OIDC_ISSUER"}},
		{name: "development, dev PKI and TLS files", env: environment("development", with(tls, map[string]string{"SKYGATE_DEV_PKI": "true"})),
			wantErr: []string{"SKYGATE_DEV_PKI conflicts with SKYGATE_TLS_CERT"}},
		{name: "development, a bad boolean", env: environment("development", map[string]string{"SKYGATE_DEV_IDP": "yes please"}),
			wantErr: []string{"SKYGATE_DEV_IDP must be true or false"}},

		{name: "sandbox configured the old way", env: map[string]string{"SKYGATE_ENV": "sandbox", "SKYGATE_MASTER_KEY": testKey},
			wantErr: []string{"SKYGATE_OIDC_ISSUER is required in sandbox", "SKYGATE_DEV_IDP=true", "SKYGATE_TLS_CERT is required in sandbox", "SKYGATE_DEV_PKI=true"}},
		{name: "sandbox without a master key", env: environment("sandbox", map[string]string{"SKYGATE_MASTER_KEY": ""}),
			wantErr: []string{"SKYGATE_MASTER_KEY is required in sandbox"}},
		{name: "sandbox, conveniences enabled explicitly", env: environment("sandbox", nil), idp: true, pki: true},
		{name: "sandbox, dev IdP only", env: environment("sandbox", with(tls, map[string]string{"SKYGATE_DEV_PKI": ""})), idp: true},
		{name: "sandbox, dev PKI only", env: environment("sandbox", with(oidc, map[string]string{"SKYGATE_DEV_IDP": ""})), pki: true},
		{name: "sandbox, real identity provider and PKI", env: environment("sandbox", with(oidc, tls, map[string]string{"SKYGATE_DEV_IDP": "", "SKYGATE_DEV_PKI": ""}))},
		{name: "sandbox, both for the identity provider", env: environment("sandbox", oidc),
			wantErr: []string{"SKYGATE_DEV_IDP conflicts with SKYGATE_OIDC_ISSUER"}},
		{name: "sandbox, both for TLS", env: environment("sandbox", tls),
			wantErr: []string{"SKYGATE_DEV_PKI conflicts with SKYGATE_TLS_CERT"}},
		{name: "sandbox, dev IdP off explicitly", env: environment("sandbox", map[string]string{"SKYGATE_DEV_IDP": "false"}),
			wantErr: []string{"SKYGATE_OIDC_ISSUER is required in sandbox"}},

		{name: "production", env: environment("production", nil)},
		{name: "production, dev IdP set true", env: environment("production", map[string]string{"SKYGATE_DEV_IDP": "true"}),
			wantErr: []string{"SKYGATE_DEV_IDP is refused in production"}},
		{name: "production, dev PKI set true", env: environment("production", map[string]string{"SKYGATE_DEV_PKI": "true"}),
			wantErr: []string{"SKYGATE_DEV_PKI is refused in production"}},
		{name: "production, dev IdP set true and no issuer", env: environment("production", map[string]string{"SKYGATE_DEV_IDP": "true", "SKYGATE_OIDC_ISSUER": ""}),
			wantErr: []string{"SKYGATE_DEV_IDP is refused in production", "SKYGATE_OIDC_ISSUER is required: production refuses the development identity provider"}},
		{name: "production, no identity provider nor PKI", env: environment("production", map[string]string{"SKYGATE_OIDC_ISSUER": "", "SKYGATE_TLS_CERT": "", "SKYGATE_TLS_KEY": "", "SKYGATE_CLIENT_CA": ""}),
			wantErr: []string{"SKYGATE_OIDC_ISSUER is required", "development identity provider", "SKYGATE_TLS_CERT is required", "development PKI"}},
		{name: "production, dev conveniences set false", env: environment("production", map[string]string{"SKYGATE_DEV_IDP": "false", "SKYGATE_DEV_PKI": "false"})},
		{name: "production without a master key", env: environment("production", map[string]string{"SKYGATE_MASTER_KEY": ""}),
			wantErr: []string{"SKYGATE_MASTER_KEY is required in production"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := config.Load(env(tc.env))
			if tc.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
				if c.DevIdP() != tc.idp || c.DevPKI() != tc.pki {
					t.Errorf("DevIdP %v DevPKI %v, want %v %v", c.DevIdP(), c.DevPKI(), tc.idp, tc.pki)
				}
				return
			}
			if err == nil {
				t.Fatalf("want an error naming %q", tc.wantErr)
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error lacks %q: %v", want, err)
				}
			}
		})
	}
}

// TestProductionRefusesWeakSettings: each weak setting is refused with the variable
// and what to set, all of them in one error; the same settings pass in development and
// sandbox.
func TestProductionRefusesWeakSettings(t *testing.T) {
	t.Parallel()
	pki := filepath.Join("/var/lib/skygate", "pki")
	for _, tc := range []struct {
		name    string
		set     map[string]string
		wantErr []string
	}{
		{"all-zero key", map[string]string{"SKYGATE_MASTER_KEY": strings.Repeat("00", 32)}, []string{"SKYGATE_MASTER_KEY is too regular", "openssl rand -hex 32"}},
		{"one repeated byte", map[string]string{"SKYGATE_MASTER_KEY": strings.Repeat("ab", 32)}, []string{"SKYGATE_MASTER_KEY is too regular"}},
		{"short repeated pattern", map[string]string{"SKYGATE_MASTER_KEY": strings.Repeat("00112233445566778899aabbccddee", 3)[:64]}, []string{"SKYGATE_MASTER_KEY is too regular"}},
		{"the published test key", map[string]string{"SKYGATE_MASTER_KEY": testKey}, []string{"SKYGATE_MASTER_KEY is too regular"}},
		{"a counting key downwards", map[string]string{"SKYGATE_MASTER_KEY": "fffdfbf9f7f5f3f1efedebe9e7e5e3e1dfdddbd9d7d5d3d1cfcdcbc9c7c5c3c1"}, []string{"SKYGATE_MASTER_KEY is too regular"}},
		{"http public URL", map[string]string{"SKYGATE_PUBLIC_URL": "http://api.example", "SKYGATE_ADMIN_REDIRECT_URIS": "https://api.example/admin/callback"}, []string{"SKYGATE_PUBLIC_URL must be https"}},
		{"http public URL, default redirect", map[string]string{"SKYGATE_PUBLIC_URL": "http://api.example"}, []string{"SKYGATE_PUBLIC_URL must be https", `SKYGATE_ADMIN_REDIRECT_URIS entry "http://api.example/admin/callback" is not https`}},
		{"private webhooks", map[string]string{"SKYGATE_WEBHOOK_ALLOW_PRIVATE": "true"}, []string{"SKYGATE_WEBHOOK_ALLOW_PRIVATE is refused in production"}},
		{"http admin redirect", map[string]string{"SKYGATE_ADMIN_REDIRECT_URIS": "https://console.example/cb, http://console.example/cb"}, []string{`SKYGATE_ADMIN_REDIRECT_URIS entry "http://console.example/cb" is not https`}},
		{"dev PKI files", map[string]string{"SKYGATE_TLS_CERT": filepath.Join(pki, "server.pem"), "SKYGATE_TLS_KEY": filepath.Join(pki, "server-key.pem"), "SKYGATE_CLIENT_CA": pki + "/sub/../ca.pem"},
			[]string{"SKYGATE_TLS_CERT names a file of the development PKI", "SKYGATE_TLS_KEY names a file of the development PKI", "SKYGATE_CLIENT_CA names a file of the development PKI"}},
		{"dev PKI files, relative data dir", map[string]string{"SKYGATE_DATA_DIR": "./data", "SKYGATE_CLIENT_CA": "data/pki/ca.pem"}, []string{"SKYGATE_CLIENT_CA names a file of the development PKI"}},
		{"dev PKI's CA key", map[string]string{"SKYGATE_CLIENT_CA_KEY": filepath.Join(pki, "ca-key.pem")}, []string{"SKYGATE_CLIENT_CA_KEY names a file of the development PKI"}},
		{"everything at once", map[string]string{"SKYGATE_MASTER_KEY": strings.Repeat("00", 32), "SKYGATE_PUBLIC_URL": "http://api.example", "SKYGATE_WEBHOOK_ALLOW_PRIVATE": "true", "SKYGATE_CLIENT_CA": filepath.Join(pki, "ca.pem")},
			[]string{"SKYGATE_MASTER_KEY", "SKYGATE_PUBLIC_URL", "SKYGATE_WEBHOOK_ALLOW_PRIVATE", "SKYGATE_ADMIN_REDIRECT_URIS", "SKYGATE_CLIENT_CA"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := config.Load(env(environment("production", tc.set)))
			if err == nil {
				t.Fatal("production accepted it")
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error lacks %q: %v", want, err)
				}
			}
			// Development and sandbox take the same settings.
			for _, e := range []string{"development", "sandbox"} {
				set := map[string]string{}
				for k, v := range tc.set {
					if k != "SKYGATE_TLS_CERT" && k != "SKYGATE_TLS_KEY" && k != "SKYGATE_CLIENT_CA" && k != "SKYGATE_CLIENT_CA_KEY" {
						set[k] = v
					}
				}
				if _, err := config.Load(env(environment(e, set))); err != nil {
					t.Errorf("%s refuses it: %v", e, err)
				}
			}
		})
	}
	// A production data dir's files outside pki/ are the operator's own.
	if _, err := config.Load(env(environment("production", map[string]string{"SKYGATE_TLS_CERT": "/var/lib/skygate/pki-prod/server.pem"}))); err != nil {
		t.Errorf("a file beside the dev PKI's directory: %v", err)
	}
}

func TestWeakMasterKeyAcceptsRandomKeys(t *testing.T) {
	t.Parallel()
	for range 10000 {
		k := make([]byte, 32)
		_, _ = rand.Read(k)
		if config.WeakMasterKey(k) {
			t.Fatalf("refused a random key %s", hex.EncodeToString(k))
		}
	}
}

// TestDefaultAddressesAreLoopback: whatever the environment, the listeners' default
// addresses are loopback; serving further needs an address the operator sets.
func TestDefaultAddressesAreLoopback(t *testing.T) {
	t.Parallel()
	for _, e := range []string{"development", "sandbox", "production"} {
		c, err := config.Load(env(environment(e, nil)))
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"HTTP": "127.0.0.1:8080", "MTLS": "127.0.0.1:8443", "Ops": "127.0.0.1:9090"}
		for name, addr := range map[string]string{"HTTP": c.HTTPAddr, "MTLS": c.MTLSAddr, "Ops": c.OpsAddr} {
			host, _, err := net.SplitHostPort(addr)
			if err != nil {
				t.Fatal(err)
			}
			if a, err := netip.ParseAddr(host); err != nil || !a.IsLoopback() || addr != want[name] {
				t.Errorf("%s: %sAddr defaults to %q, want %s", e, name, addr, want[name])
			}
		}
	}
}
