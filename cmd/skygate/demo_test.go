package main

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/skygate/skygate"
)

// demoLine is the development demo client's line on serve's stdout.
var demoLine = regexp.MustCompile(`(?m)^Demo client \(development only\): account_id=(\S+) client_id=(\S+) client_secret=(\S+)$`)

// demoClient returns the demo client that a development serve printed to stdout.
func demoClient(tb testing.TB, stdout string) credentials {
	tb.Helper()
	m := demoLine.FindStringSubmatch(stdout)
	if m == nil {
		tb.Fatalf("no demo client on stdout:\n%s", stdout)
	}
	return credentials{AccountID: m[1], ClientID: m[2], ClientSecret: m[3]}
}

// TestDemoClientDevelopment: development prints the demo client once per start to
// stdout, for a person; the JSON log names it without its secret.
func TestDemoClientDevelopment(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, nil))
	if n := len(demoLine.FindAllString(s.stdout.String(), -1)); n != 1 {
		t.Fatalf("%d demo lines on stdout:\n%s", n, s.stdout.String())
	}
	demo := demoClient(t, s.stdout.String())
	log := s.stderr.String()
	if strings.Contains(log, demo.ClientSecret) || strings.Contains(log, "client_secret") {
		t.Errorf("the log holds the demo secret:\n%s", log)
	}
	if !strings.Contains(log, `"client_id":"`+demo.ClientID+`"`) {
		t.Errorf("the log does not name the demo client:\n%s", log)
	}
	if strings.Contains(log, "beyond loopback") || strings.Contains(log, "sandbox") {
		t.Errorf("a loopback development server warned:\n%s", log)
	}
	s.mustToken(demo, "")
}

// TestSandboxWithExplicitConveniences: a sandbox that enables the development identity
// provider and PKI explicitly starts and warns of each; its demo account exists with
// its eSIM data, but no secret of it is printed or logged, the one a development start
// on the same database printed stops working, and so do the tokens obtained with it,
// and bootstrap --rotate-secret gives one.
func TestSandboxWithExplicitConveniences(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		env := e.env(t, nil)
		dev := startServer(t, env)
		shown := demoClient(t, dev.stdout.String())
		minted := dev.mustToken(shown, "")
		dev.stop()

		sandbox := map[string]string{}
		for k, v := range env {
			sandbox[k] = v
		}
		sandbox["SKYGATE_ENV"], sandbox["SKYGATE_DEV_IDP"], sandbox["SKYGATE_DEV_PKI"] = "sandbox", "true", "true"
		s := startServer(t, sandbox)
		log := s.stderr.String()
		for _, want := range []string{
			`"level":"WARN","msg":"sandbox runs the development identity provider (SKYGATE_DEV_IDP=true)"`,
			"anyone who reaches the sandbox can sign in as an invented employee with admin over every account",
			`"level":"WARN","msg":"sandbox uses the development PKI (SKYGATE_DEV_PKI=true)"`,
			"the CA key sits on the disk",
			`"msg":"demo account ready; its secret is not shown","account_id":"` + shown.AccountID + `","client_id":"` + shown.ClientID + `"`,
			"--rotate-secret",
			"replaced the demo client's secret",
		} {
			if !strings.Contains(log, want) {
				t.Errorf("the log lacks %q:\n%s", want, log)
			}
		}
		if out := s.stdout.String(); out != "" {
			t.Errorf("sandbox printed %q", out)
		}
		if strings.Contains(log, "client_secret") || strings.Contains(log, "sks_") {
			t.Errorf("the log holds a secret:\n%s", log)
		}
		if resp, body := s.tokenCall(shown, ""); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("the secret development printed: %d %s", resp.StatusCode, body)
		}
		resp, body := s.get("/v2/catalog/lounges?limit=1", minted, nil)
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
			t.Errorf("a token of the secret development printed: %d %.300s", resp.StatusCode, body)
		}

		rotated := s.mustBootstrap(demoAccount, skygate.B2BScopes, "--rotate-secret")
		if rotated.ClientID != shown.ClientID || rotated.ClientSecret == "" {
			t.Fatalf("bootstrap --rotate-secret: %+v", rotated)
		}
		tok := s.mustToken(rotated, "")
		resp, body = s.partnerCall(http.MethodGet, "/v2/catalog/esim/packages", tok, "", nil)
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"id"`) {
			t.Errorf("demo packages in sandbox: %d %.300s", resp.StatusCode, body)
		}
	})
}
