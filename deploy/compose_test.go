package deploy

import (
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
	"sigs.k8s.io/yaml"
)

// composeFile is the part of compose.yaml the tests read; `dclint` (scripts/test)
// validates the whole file against the Compose Specification.
type composeFile struct {
	Services map[string]composeService `json:"services"`
}

type composeService struct {
	Image           string            `json:"image"`
	Environment     map[string]string `json:"environment"`
	Ports           []string          `json:"ports"`
	StopGracePeriod string            `json:"stop_grace_period"`
	Networks        map[string]struct {
		Aliases []string `json:"aliases"`
	} `json:"networks"`
	DependsOn map[string]struct {
		Condition string `json:"condition"`
	} `json:"depends_on"`
}

// loadCompose returns compose.yaml with every ${VAR:-default} in the skygate service's
// environment resolved as `docker compose up` resolves it in a shell that sets none of
// them.
func loadCompose(t *testing.T) composeFile {
	t.Helper()
	var c composeFile
	if err := yaml.Unmarshal(readFile(t, "compose.yaml"), &c); err != nil {
		t.Fatal(err)
	}
	for _, s := range c.Services {
		for k, v := range s.Environment {
			s.Environment[k] = interpolate(t, v)
		}
	}
	return c
}

// interpolate resolves the Compose Specification's ${VAR}, ${VAR:-default},
// ${VAR-default} and $$ in s, with no variable set.
func interpolate(t *testing.T, s string) string {
	t.Helper()
	return os.Expand(s, func(expr string) string {
		if expr == "$" {
			return "$"
		}
		for _, sep := range []string{":-", "-"} {
			if _, def, ok := strings.Cut(expr, sep); ok {
				return def
			}
		}
		if strings.ContainsAny(expr, ":?+") {
			t.Fatalf("${%s}: an interpolation this test does not resolve", expr)
		}
		return ""
	})
}

// dexConfig is the part of dex/config.yaml Skygate depends on.
type dexConfig struct {
	Issuer  string `json:"issuer"`
	Clients []struct {
		ID           string   `json:"id"`
		Secret       string   `json:"secret"`
		RedirectURIs []string `json:"redirectURIs"`
	} `json:"staticClients"`
	Passwords []struct {
		Email  string   `json:"email"`
		Hash   string   `json:"hash"`
		Groups []string `json:"groups"`
	} `json:"staticPasswords"`
}

// devPassword is the static user's password, published in dex/config.yaml and the
// README.
const devPassword = "skygate-dev"

// callbackPath is where the identity provider sends the browser back to Skygate
// (oauth.AuthorizationCallbackPath).
const callbackPath = "/api/v1/auth/idp/callback"

// TestComposeFiles checks that compose.yaml, the image and dex/config.yaml agree: the
// host names Skygate uses are the services', the published ports are the listeners',
// Dex knows Skygate as its client with the callback under SKYGATE_PUBLIC_URL, the
// README's password signs in, and the stop grace period covers the drain.
func TestComposeFiles(t *testing.T) {
	c := loadCompose(t)
	sg, ok := c.Services["skygate"]
	if !ok {
		t.Fatal("compose.yaml has no skygate service")
	}
	env := sg.Environment
	for name := range env {
		if !knownVariable(name) {
			t.Errorf("%s is no variable of internal/config (Variables)", name)
		}
	}
	db, err := url.Parse(env["SKYGATE_DATABASE_URL"])
	if err != nil {
		t.Fatal(err)
	}
	redis, err := url.Parse(env["SKYGATE_REDIS_URL"])
	if err != nil {
		t.Fatal(err)
	}
	issuer, err := url.Parse(env["SKYGATE_OIDC_ISSUER"])
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range []struct{ service, host, condition string }{
		{"postgres", db.Hostname(), "service_healthy"},
		{"redis", redis.Hostname(), "service_healthy"},
		{"dex", issuer.Hostname(), "service_started"},
	} {
		s, ok := c.Services[dep.service]
		if !ok {
			t.Errorf("no %s service", dep.service)
			continue
		}
		if dep.host != dep.service && !slices.Contains(s.Networks["default"].Aliases, dep.host) {
			t.Errorf("skygate reaches %s at %s, which is neither its name nor an alias", dep.service, dep.host)
		}
		if got := sg.DependsOn[dep.service].Condition; got != dep.condition {
			t.Errorf("skygate depends on %s with condition %q, want %s", dep.service, got, dep.condition)
		}
	}
	// The browser reaches Dex at the issuer too: its port is published on loopback.
	if !slices.Contains(c.Services["dex"].Ports, "127.0.0.1:"+issuer.Port()+":"+issuer.Port()) {
		t.Errorf("dex publishes %v, want the issuer's port %s on 127.0.0.1", c.Services["dex"].Ports, issuer.Port())
	}

	// The published ports are the image's listeners, and the public URL is the plain
	// one's.
	image := imageEnv(t)
	var want []string
	for _, name := range []string{"SKYGATE_HTTP_ADDR", "SKYGATE_MTLS_ADDR", "SKYGATE_OPS_ADDR"} {
		p := portOf(image[name])
		want = append(want, "127.0.0.1:"+strconv.Itoa(p)+":"+strconv.Itoa(p))
	}
	if strings.Join(sg.Ports, " ") != strings.Join(want, " ") {
		t.Errorf("skygate publishes %v, want the listeners %v on loopback", sg.Ports, want)
	}
	public, err := url.Parse(env["SKYGATE_PUBLIC_URL"])
	if err != nil || public.Port() != strconv.Itoa(portOf(image["SKYGATE_HTTP_ADDR"])) {
		t.Errorf("SKYGATE_PUBLIC_URL %s is not at the plain listener's published port", env["SKYGATE_PUBLIC_URL"])
	}

	var dex dexConfig
	if err := yaml.Unmarshal(readFile(t, "dex/config.yaml"), &dex); err != nil {
		t.Fatal(err)
	}
	if dex.Issuer != env["SKYGATE_OIDC_ISSUER"] {
		t.Errorf("Dex's issuer %q, SKYGATE_OIDC_ISSUER %q", dex.Issuer, env["SKYGATE_OIDC_ISSUER"])
	}
	if len(dex.Clients) != 1 || dex.Clients[0].ID != env["SKYGATE_OIDC_CLIENT_ID"] || dex.Clients[0].Secret != env["SKYGATE_OIDC_CLIENT_SECRET"] ||
		!slices.Contains(dex.Clients[0].RedirectURIs, env["SKYGATE_PUBLIC_URL"]+callbackPath) {
		t.Errorf("Dex's static clients %+v, want SKYGATE_OIDC_CLIENT_ID with its secret and the redirect URI %s", dex.Clients, env["SKYGATE_PUBLIC_URL"]+callbackPath)
	}
	if len(dex.Passwords) != 1 || bcrypt.CompareHashAndPassword([]byte(dex.Passwords[0].Hash), []byte(devPassword)) != nil {
		t.Errorf("Dex's static user does not sign in with the password %q", devPassword)
	} else if group, _, _ := strings.Cut(env["SKYGATE_ROLE_MAP"], "="); !slices.Contains(dex.Passwords[0].Groups, group) {
		t.Errorf("Dex's static user is not in %s, the group SKYGATE_ROLE_MAP maps", group)
	}

	grace, err := time.ParseDuration(sg.StopGracePeriod)
	if err != nil {
		t.Fatalf("skygate's stop_grace_period %q: %v", sg.StopGracePeriod, err)
	}
	var drain time.Duration
	for _, name := range []string{"SKYGATE_SHUTDOWN_DELAY", "SKYGATE_SHUTDOWN_TIMEOUT"} {
		v, ok := env[name]
		if !ok {
			v = variableDefault(t, name)
		}
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("%s=%q: %v", name, v, err)
		}
		drain += d
	}
	if grace <= drain {
		t.Errorf("stop_grace_period %v, want more than the shutdown delay and timeout, %v", grace, drain)
	}
}
