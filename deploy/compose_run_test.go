package deploy

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/oauth2-proxy/mockoidc"
	"golang.org/x/oauth2"

	"github.com/skygate/skygate/internal/postgres/pgtest"
)

// TestCompose runs what `docker compose -f deploy/compose.yaml up` runs, without
// containers: the binary scripts/build makes (the Dockerfile's build) with the
// environment of the image and of compose.yaml's skygate service. Only what points at
// the containers is rewritten: the listeners to free loopback ports (and
// SKYGATE_PUBLIC_URL with them), the data volume to a temporary directory, the
// database to the test PostgreSQL (a schema of its own), Redis to the test Redis, and
// the issuer to mockoidc (Dex does not build from the Go module proxy; TestComposeFiles
// checks its configuration instead), which knows Skygate by compose.yaml's client id
// and secret. Then: migrate, serve, /readyz, the demo client's token and a catalog
// read on both listeners, an employee's login to the console, and a clean stop on
// SIGTERM.
func TestCompose(t *testing.T) {
	dsn := pgtest.MustDSN(t)
	redisURL := os.Getenv("SKYGATE_TEST_REDIS_URL")
	if redisURL == "" {
		t.Skip("SKYGATE_TEST_REDIS_URL is unset: compose.yaml's service uses Redis")
	}
	bin := mustBuild(t)

	env := imageEnv(t)
	maps.Copy(env, loadCompose(t).Services["skygate"].Environment)
	idp := startMockOIDC(t, env["SKYGATE_OIDC_CLIENT_ID"], env["SKYGATE_OIDC_CLIENT_SECRET"])
	addrs := freeAddrs(t, 3)
	public, err := url.Parse(env["SKYGATE_PUBLIC_URL"])
	if err != nil {
		t.Fatal(err)
	}
	public.Host = addrs[0]
	rewrites := map[string]string{
		"SKYGATE_HTTP_ADDR":    addrs[0],
		"SKYGATE_MTLS_ADDR":    addrs[1],
		"SKYGATE_OPS_ADDR":     addrs[2],
		"SKYGATE_PUBLIC_URL":   public.String(),
		"SKYGATE_DATA_DIR":     t.TempDir(),
		"SKYGATE_DATABASE_URL": dsn,
		"SKYGATE_REDIS_URL":    redisURL,
		"SKYGATE_OIDC_ISSUER":  idp.Issuer(),
	}
	for name, v := range rewrites {
		if _, ok := env[name]; !ok {
			t.Fatalf("%s is set neither by the image nor by compose.yaml", name)
		}
		env[name] = v
	}
	var environ []string
	for k, v := range env {
		environ = append(environ, k+"="+v)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "version").Output()
	if err != nil || !strings.Contains(string(out), testVersion) || !strings.Contains(string(out), testCommit) {
		t.Errorf("skygate version: %q, %v; want the stamped version %s and commit %s", out, err, testVersion, testCommit)
	}
	if out, err := exec.CommandContext(ctx, "go", "version", "-m", bin).Output(); err != nil ||
		!strings.Contains(string(out), "CGO_ENABLED=0") || !strings.Contains(string(out), "-trimpath=true") {
		t.Errorf("go version -m: %v, want CGO_ENABLED=0 and -trimpath:\n%s", err, out)
	}
	migrate := exec.CommandContext(ctx, bin, "migrate")
	migrate.Env = environ
	if out, err := migrate.CombinedOutput(); err != nil {
		t.Fatalf("skygate migrate: %v\n%s", err, out)
	}

	srv := startServe(t, ctx, bin, environ)
	ops := "http://" + addrs[2]
	srv.waitReady(t, ops+"/readyz")
	if status, _ := get(t, ops+"/metrics", "", nil); status != http.StatusOK {
		t.Errorf("/metrics: %d", status)
	}

	// A partner: the demo client development prints, on the plain and the mutual-TLS
	// listener (with the development PKI's client certificate from the data volume).
	id, secret := srv.demoClient(t)
	token := clientToken(t, public.String(), id, secret)
	if status, body := get(t, public.String()+"/v2/catalog/lounges?limit=1", token, nil); status != http.StatusOK {
		t.Errorf("catalog on the plain listener: %d %s", status, body)
	}
	mtls := mtlsClient(t, filepath.Join(env["SKYGATE_DATA_DIR"], "pki"))
	if status, body := get(t, "https://"+addrs[1]+"/v2/catalog/lounges?limit=1", token, mtls); status != http.StatusOK {
		t.Errorf("catalog on the mutual-TLS listener: %d %s", status, body)
	}

	// An employee, through the external provider.
	admin := employeeToken(t, public.String())
	if status, body := get(t, public.String()+"/api/v1/admin/accounts", admin, nil); status != http.StatusOK {
		t.Errorf("admin API with the employee's token: %d %s", status, body)
	}

	if err := srv.stop(); err != nil {
		t.Errorf("serve did not stop cleanly on SIGTERM: %v\n%s", err, srv.stderr.String())
	}
}

// server is a running `skygate serve`.
type server struct {
	cmd            *exec.Cmd
	stdout, stderr syncBuffer
	done           chan struct{}
	err            error
}

func startServe(t *testing.T, ctx context.Context, bin string, environ []string) *server {
	t.Helper()
	s := &server{done: make(chan struct{})}
	s.cmd = exec.CommandContext(ctx, bin, "serve")
	s.cmd.Env = environ
	s.cmd.Stdout, s.cmd.Stderr = &s.stdout, &s.stderr
	s.cmd.Cancel = func() error { return s.cmd.Process.Signal(syscall.SIGTERM) }
	s.cmd.WaitDelay = time.Minute
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.err = s.cmd.Wait(); close(s.done) }()
	t.Cleanup(func() {
		s.cmd.Process.Kill()
		<-s.done
		if t.Failed() {
			t.Logf("serve's log:\n%s", s.stderr.String())
		}
	})
	return s
}

// waitReady polls readyz until it answers 200, failing when serve exits first.
func (s *server) waitReady(t *testing.T, readyz string) {
	t.Helper()
	for {
		select {
		case <-s.done:
			t.Fatalf("serve exited: %v\n%s", s.err, s.stderr.String())
		case <-t.Context().Done():
			t.Fatal(t.Context().Err())
		default:
		}
		if resp, err := http.Get(readyz); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// demoClient returns the demo client's credentials that serve printed on stdout.
func (s *server) demoClient(t *testing.T) (id, secret string) {
	t.Helper()
	for _, line := range strings.Split(s.stdout.String(), "\n") {
		if !strings.HasPrefix(line, "Demo client") {
			continue
		}
		for _, f := range strings.Fields(line) {
			if v, ok := strings.CutPrefix(f, "client_id="); ok {
				id = v
			}
			if v, ok := strings.CutPrefix(f, "client_secret="); ok {
				secret = v
			}
		}
	}
	if id == "" || secret == "" {
		t.Fatalf("serve printed no demo client:\n%s", s.stdout.String())
	}
	return id, secret
}

// stop sends SIGTERM and returns how serve exited.
func (s *server) stop() error {
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	<-s.done
	return s.err
}

// clientToken returns an access token of the client_credentials grant.
func clientToken(t *testing.T, base, id, secret string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+"/oauth/v2/token", strings.NewReader("grant_type=client_credentials"))
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth(id, secret)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return tokenOf(t, req)
}

// employeeToken signs in to the console as a browser does, through the provider,
// and returns the employee's access token.
func employeeToken(t *testing.T, base string) string {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	spa := base + "/admin/callback"
	var landing *url.URL
	browser := &http.Client{Jar: jar, CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if strings.HasPrefix(req.URL.String(), spa) {
			landing = req.URL
			return http.ErrUseLastResponse
		}
		return nil
	}}
	verifier := oauth2.GenerateVerifier()
	login := base + "/api/v1/auth/idp/login?" + url.Values{
		"redirect_uri": {spa}, "code_challenge": {oauth2.S256ChallengeFromVerifier(verifier)},
		"code_challenge_method": {"S256"}, "state": {"compose"},
	}.Encode()
	resp, err := browser.Get(login)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if landing == nil || landing.Query().Get("code") == "" || landing.Query().Get("state") != "compose" {
		t.Fatalf("the login ended at %v (%s), want the console's callback with a code", landing, resp.Status)
	}
	form := url.Values{"grant_type": {"authorization_code"}, "code": {landing.Query().Get("code")},
		"code_verifier": {verifier}, "redirect_uri": {spa}}
	req, err := http.NewRequest(http.MethodPost, base+"/oauth/v2/token", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return tokenOf(t, req)
}

func tokenOf(t *testing.T, req *http.Request) string {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusOK || body.AccessToken == "" {
		t.Fatalf("token: %s, %v", resp.Status, err)
	}
	return body.AccessToken
}

// get returns the status and body of a GET with a bearer token (when given) through
// client (http.DefaultClient when nil).
func get(t *testing.T, u, token string, client *http.Client) (int, string) {
	t.Helper()
	if client == nil {
		client = http.DefaultClient
	}
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// mtlsClient returns a client that presents the development PKI's client certificate
// and trusts its CA.
func mtlsClient(t *testing.T, pki string) *http.Client {
	t.Helper()
	cert, err := tls.LoadX509KeyPair(filepath.Join(pki, "client.pem"), filepath.Join(pki, "client-key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(readFile(t, filepath.Join(pki, "ca.pem"))) {
		t.Fatal("the development CA holds no certificate")
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{
		Certificates: []tls.Certificate{cert}, RootCAs: roots, ServerName: "localhost",
	}}}
}

// startMockOIDC runs oauth2-proxy's mockoidc, an OpenID Connect provider written
// independently of Skygate, with the client id and secret Skygate is configured
// with.
func startMockOIDC(t *testing.T, clientID, secret string) *mockoidc.MockOIDC {
	t.Helper()
	m, err := mockoidc.NewServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	m.ClientID, m.ClientSecret = clientID, secret
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(ln, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Shutdown() })
	m.QueueUser(&employee{MockUser: mockoidc.MockUser{
		Subject: "admin", Email: "admin@example.com", EmailVerified: true, Groups: []string{"skygate-admins"},
	}})
	return m
}

// employee is a mockoidc user whose userinfo carries sub, as OpenID Connect Core
// §5.3.2 requires and Skygate checks (mockoidc's MockUser leaves it out).
type employee struct{ mockoidc.MockUser }

func (u *employee) Userinfo(scope []string) ([]byte, error) {
	b, err := u.MockUser.Userinfo(scope)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	m["sub"] = u.Subject
	return json.Marshal(m)
}

// freeAddrs returns n loopback addresses with ports free a moment ago.
func freeAddrs(t *testing.T, n int) []string {
	t.Helper()
	var addrs []string
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		addrs = append(addrs, ln.Addr().String())
	}
	return addrs
}

// syncBuffer is a bytes.Buffer that a process writes while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
