package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate/internal/config"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestLoadDefaults(t *testing.T) {
	t.Parallel()
	c, err := config.Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.Env != "development" || c.HTTPAddr != "127.0.0.1:8080" || c.MTLSAddr != "127.0.0.1:8443" {
		t.Errorf("defaults: %+v", c)
	}
	if c.DatabaseURL != "sqlite://data/skygate.db" || c.DatabaseMaxConns != 0 {
		t.Errorf("DatabaseURL = %q, DatabaseMaxConns = %d", c.DatabaseURL, c.DatabaseMaxConns)
	}
	if c.TokenTTL != time.Hour || c.ConfirmWindow != 30*time.Minute || c.WebhookGrace != 24*time.Hour || c.KeyPrepublish != 10*time.Minute {
		t.Errorf("durations: %+v", c)
	}
	if c.WebhookTimeout != 10*time.Second || c.WebhookLease != 30*time.Second || c.CatalogRefresh != 5*time.Second {
		t.Errorf("WebhookTimeout = %v, WebhookLease = %v, CatalogRefresh = %v", c.WebhookTimeout, c.WebhookLease, c.CatalogRefresh)
	}
	if !c.WebhookPrivate || !c.DevPKI() || !c.DevIdP() || !c.Migrate {
		t.Errorf("development conveniences off: %+v", c)
	}
	if got := c.AdminRedirects; len(got) != 1 || got[0] != "http://127.0.0.1:8080/admin/callback" {
		t.Errorf("AdminRedirects = %v", got)
	}
}

func TestLoadValues(t *testing.T) {
	t.Parallel()
	c, err := config.Load(env(map[string]string{
		"SKYGATE_ENV":                       "sandbox",
		"SKYGATE_MASTER_KEY":                strings.Repeat("ab", 32),
		"SKYGATE_DEV_IDP":                   "true",
		"SKYGATE_DEV_PKI":                   "true",
		"SKYGATE_ROLE_MAP":                  "grp-ops=admin, grp-audit=auditor",
		"SKYGATE_TRUSTED_PROXIES":           "10.0.0.0/8, 127.0.0.1",
		"SKYGATE_TRUSTED_PROXY_CERT_HEADER": "X-Client-Cert",
		"SKYGATE_ADMIN_REDIRECT_URIS":       "https://a.example/cb,https://b.example/cb",
		"SKYGATE_PUBLIC_URL":                "https://api.example/",
		"SKYGATE_DATABASE_MAX_CONNS":        "12",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.MasterKey) != 32 || c.DatabaseMaxConns != 12 || c.RoleMap["grp-audit"] != "auditor" || len(c.TrustedProxies) != 2 || len(c.AdminRedirects) != 2 {
		t.Errorf("parsed: %+v", c)
	}
	if c.PublicURL != "https://api.example" || c.WebhookPrivate {
		t.Errorf("PublicURL %q WebhookPrivate %v", c.PublicURL, c.WebhookPrivate)
	}
}

func TestLoadReportsEveryProblem(t *testing.T) {
	t.Parallel()
	_, err := config.Load(env(map[string]string{
		"SKYGATE_ENV":                "production",
		"SKYGATE_TOKEN_TTL":          "forever",
		"SKYGATE_MIGRATE":            "maybe",
		"SKYGATE_DATABASE_URL":       "mysql://x",
		"SKYGATE_ROLE_MAP":           "nogroup",
		"SKYGATE_DATABASE_MAX_CONNS": "0",
	}))
	if err == nil {
		t.Fatal("want error")
	}
	for _, want := range []string{"SKYGATE_TOKEN_TTL", "SKYGATE_MIGRATE", "SKYGATE_DATABASE_URL", "SKYGATE_DATABASE_MAX_CONNS", "SKYGATE_MASTER_KEY", "development PKI", "development identity provider", "SKYGATE_ROLE_MAP"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
}

// TestLoadIntervalsMustBePositive: an interval of zero or less is refused, naming the
// variable; a positive one is taken as given.
func TestLoadIntervalsMustBePositive(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"SKYGATE_WEBHOOK_TIMEOUT", "SKYGATE_WEBHOOK_LEASE", "SKYGATE_CATALOG_REFRESH"} {
		for _, v := range []string{"0s", "-1s"} {
			if _, err := config.Load(env(map[string]string{name: v})); err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("%s=%s: %v, want an error naming it", name, v, err)
			}
		}
	}
	c, err := config.Load(env(map[string]string{"SKYGATE_WEBHOOK_TIMEOUT": "2s", "SKYGATE_WEBHOOK_LEASE": "4s", "SKYGATE_CATALOG_REFRESH": "100ms"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.WebhookTimeout != 2*time.Second || c.WebhookLease != 4*time.Second || c.CatalogRefresh != 100*time.Millisecond {
		t.Errorf("WebhookTimeout = %v, WebhookLease = %v, CatalogRefresh = %v", c.WebhookTimeout, c.WebhookLease, c.CatalogRefresh)
	}
}

func TestParseMasterKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{strings.Repeat("0f", 32), true},
		{"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=", true},
		{"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8", true},
		{"short", false},
		{strings.Repeat("0f", 31), false},
	} {
		_, err := config.ParseMasterKey(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("ParseMasterKey(%q) err=%v", tc.in, err)
		}
	}
}

func TestLoadClientCAKeyAndCertTTL(t *testing.T) {
	t.Parallel()
	c, err := config.Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.ClientCertTTL != 8760*time.Hour || c.ClientCAKey != "" {
		t.Errorf("defaults: ClientCertTTL %v, ClientCAKey %q", c.ClientCertTTL, c.ClientCAKey)
	}
	c, err = config.Load(env(map[string]string{
		"SKYGATE_TLS_CERT": "server.pem", "SKYGATE_TLS_KEY": "server-key.pem", "SKYGATE_CLIENT_CA": "ca.pem",
		"SKYGATE_CLIENT_CA_KEY": "ca-key.pem", "SKYGATE_CLIENT_CERT_TTL": "720h",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.ClientCAKey != "ca-key.pem" || c.ClientCertTTL != 720*time.Hour {
		t.Errorf("ClientCAKey %q, ClientCertTTL %v", c.ClientCAKey, c.ClientCertTTL)
	}
	for name, vars := range map[string]map[string]string{
		"a key without its CA (development PKI)": {"SKYGATE_CLIENT_CA_KEY": "ca-key.pem"},
		"a lifetime of zero":                     {"SKYGATE_CLIENT_CERT_TTL": "0s"},
		"a negative lifetime":                    {"SKYGATE_CLIENT_CERT_TTL": "-1h"},
		"a lifetime that is no duration":         {"SKYGATE_CLIENT_CERT_TTL": "a year"},
	} {
		_, err := config.Load(env(vars))
		for k := range vars {
			if err == nil || !strings.Contains(err.Error(), k) {
				t.Errorf("%s: error %v does not name %s", name, err, k)
			}
		}
	}
}

// TestLoadRefusesMalformedSettings: settings that no environment can use, each refused
// by name.
func TestLoadRefusesMalformedSettings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		set  map[string]string
		want string
	}{
		{"redirect URI without a host", map[string]string{"SKYGATE_ADMIN_REDIRECT_URIS": "https:///cb"}, `SKYGATE_ADMIN_REDIRECT_URIS entry "https:///cb" must be an absolute http(s) URL with a host`},
		{"redirect URI opaque", map[string]string{"SKYGATE_ADMIN_REDIRECT_URIS": "https:evil.example/cb"}, `entry "https:evil.example/cb" must be an absolute`},
		{"redirect URI relative", map[string]string{"SKYGATE_ADMIN_REDIRECT_URIS": "/admin/callback"}, `entry "/admin/callback" must be an absolute`},
		{"redirect URI of another scheme", map[string]string{"SKYGATE_ADMIN_REDIRECT_URIS": "javascript://x/%0aalert(1)"}, "must be an absolute"},
		{"redirect URI with user information", map[string]string{"SKYGATE_ADMIN_REDIRECT_URIS": "https://user@console.example/cb"}, "without user information"},
		{"redirect URI with a fragment", map[string]string{"SKYGATE_ADMIN_REDIRECT_URIS": "https://console.example/cb#x"}, "or fragment"},
		{"the client CA alone", map[string]string{"SKYGATE_CLIENT_CA": "/etc/skygate/ca.pem"}, "set all three or none"},
		{"certificate and key without the client CA", map[string]string{"SKYGATE_TLS_CERT": "/etc/s.pem", "SKYGATE_TLS_KEY": "/etc/k.pem"}, "set all three or none"},
		{"unknown log level", map[string]string{"SKYGATE_LOG_LEVEL": "verbose"}, `SKYGATE_LOG_LEVEL must be debug, info, warn or error, got "verbose"`},
		{"listen address without a port", map[string]string{"SKYGATE_HTTP_ADDR": "127.0.0.1"}, `SKYGATE_HTTP_ADDR must be HOST:PORT`},
		{"listen port out of range", map[string]string{"SKYGATE_MTLS_ADDR": ":65536"}, `SKYGATE_MTLS_ADDR must be HOST:PORT`},
		{"listen port by name", map[string]string{"SKYGATE_OPS_ADDR": "localhost:http"}, `SKYGATE_OPS_ADDR must be HOST:PORT`},
		{"public URL with port 0", map[string]string{"SKYGATE_HTTP_ADDR": "127.0.0.1:0"}, `SKYGATE_PUBLIC_URL is required when SKYGATE_HTTP_ADDR's port is 0`},
		{"public URL in production", map[string]string{"SKYGATE_ENV": "production"}, `SKYGATE_PUBLIC_URL is required in production`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := config.Load(env(tc.set))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// TestPublicURLFollowsTheHTTPListener checks that an unset SKYGATE_PUBLIC_URL is the
// plain listener's URL, so that a port change keeps discovery and sign-in working.
func TestPublicURLFollowsTheHTTPListener(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ addr, want string }{
		{"127.0.0.1:9000", "http://127.0.0.1:9000"},
		{":9000", "http://127.0.0.1:9000"},
		{"0.0.0.0:9000", "http://127.0.0.1:9000"},
		{"[::]:9000", "http://127.0.0.1:9000"},
		{"[::1]:9000", "http://[::1]:9000"},
		{"localhost:9000", "http://localhost:9000"},
	} {
		c, err := config.Load(env(map[string]string{"SKYGATE_HTTP_ADDR": tc.addr}))
		if err != nil {
			t.Fatal(err)
		}
		if c.PublicURL != tc.want || c.AdminRedirects[0] != tc.want+"/admin/callback" {
			t.Errorf("SKYGATE_HTTP_ADDR=%s: PublicURL = %q, AdminRedirects = %v, want %q", tc.addr, c.PublicURL, c.AdminRedirects, tc.want)
		}
	}
	c, err := config.Load(env(map[string]string{"SKYGATE_HTTP_ADDR": ":9000", "SKYGATE_PUBLIC_URL": "http://skygate.test/"}))
	if err != nil || c.PublicURL != "http://skygate.test" {
		t.Errorf("a set SKYGATE_PUBLIC_URL: %v, %v", c, err)
	}
}
