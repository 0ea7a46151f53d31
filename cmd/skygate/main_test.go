package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate/internal/config"
	"github.com/skygate/skygate/internal/devpki"
	"github.com/skygate/skygate/internal/postgres/pgtest"
)

// testMasterKey seals the test servers' secrets; tests open the same store with it.
const testMasterKey = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

// testPublicURL is the issuer and audience of the test servers' tokens.
const testPublicURL = "http://skygate.test"

// testServer is a real `skygate serve` running in-process on ephemeral ports.
type testServer struct {
	t        testing.TB
	env      map[string]string
	base     string // plain listener, http://127.0.0.1:port
	mtlsBase string // mTLS listener, https://127.0.0.1:port
	opsBase  string // operator listener, http://127.0.0.1:port
	// client validates every response against the OpenAPI document; mtlsClient does
	// too and presents the development client certificate.
	client     *http.Client
	mtlsClient *http.Client
	// noCertClient speaks TLS to the mTLS listener without a client certificate.
	noCertClient *http.Client
	// opsClient validates the operator listener's responses against the document.
	opsClient *http.Client
	stderr    *syncBuffer
	// stdout is what serve prints for a person (the development demo client).
	stdout *syncBuffer
	stop   func()
}

// syncBuffer is an io.Writer safe for the server's log and the test's reads.
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

// testEnv is the environment of a test server on SQLite in a temporary directory.
func testEnv(tb testing.TB, overrides map[string]string) map[string]string {
	tb.Helper()
	dir := tb.TempDir()
	env := map[string]string{
		"SKYGATE_ENV":        "development",
		"SKYGATE_HTTP_ADDR":  "127.0.0.1:0",
		"SKYGATE_MTLS_ADDR":  "127.0.0.1:0",
		"SKYGATE_OPS_ADDR":   "127.0.0.1:0",
		"SKYGATE_DATA_DIR":   dir,
		"SKYGATE_MASTER_KEY": testMasterKey,
		"SKYGATE_PUBLIC_URL": testPublicURL,
		"SKYGATE_LOG_LEVEL":  "warn",
	}
	for k, v := range overrides {
		env[k] = v
	}
	return env
}

// noShutdownDelay is the SKYGATE_SHUTDOWN_DELAY of test servers unless their env sets
// one: no load balancer needs to notice that they stop.
const noShutdownDelay = "0s"

// startServer runs `skygate serve` with env until the test ends, waits for the
// listening line and for /readyz.
func startServer(tb testing.TB, env map[string]string) *testServer {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &testServer{t: tb, env: env, stderr: &syncBuffer{}, stdout: &syncBuffer{}}
	done := make(chan error, 1)
	// The listening line is logged at info; keep info for it and filter nothing else.
	runEnv := func(k string) string {
		switch {
		case k == "SKYGATE_LOG_LEVEL":
			return "info"
		case k == "SKYGATE_SHUTDOWN_DELAY" && env[k] == "":
			return noShutdownDelay
		}
		return env[k]
	}
	go func() { done <- run(ctx, []string{"skygate", "serve"}, runEnv, s.stdout, s.stderr) }()
	// stop may be called by the test before its cleanup calls it again.
	s.stop = sync.OnceFunc(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				tb.Errorf("serve returned %v", err)
			}
		case <-time.After(20 * time.Second):
			tb.Errorf("serve did not stop")
		}
	})
	tb.Cleanup(s.stop)

	deadline := time.Now().Add(30 * time.Second)
	for s.base == "" {
		select {
		case err := <-done:
			tb.Fatalf("serve exited early: %v\n%s", err, s.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			tb.Fatalf("no listening line:\n%s", s.stderr.String())
		}
		l := listeningLineOf(s.stderr.String())
		s.base, s.mtlsBase, s.opsBase = l.HTTP, l.MTLS, l.Ops
		time.Sleep(10 * time.Millisecond)
	}
	s.opsClient = &http.Client{Transport: newOpsValidatingTransport(tb, http.DefaultTransport.(*http.Transport).Clone(), s.opsBase)}
	s.client = &http.Client{Transport: newValidatingTransport(tb, http.DefaultTransport.(*http.Transport).Clone(), s.base, s.mtlsBase)}
	s.mtlsClient = &http.Client{Transport: newValidatingTransport(tb, s.tlsTransport(true), s.base, s.mtlsBase)}
	s.noCertClient = &http.Client{Transport: newValidatingTransport(tb, s.tlsTransport(false), s.base, s.mtlsBase)}
	for {
		resp, err := http.Get(s.base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			tb.Fatalf("never ready: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return s
}

// listeningLine is serve's listening line: the partner listeners' and the operator
// listener's base URLs.
type listeningLine struct {
	Msg  string `json:"msg"`
	HTTP string `json:"http"`
	MTLS string `json:"mtls"`
	Ops  string `json:"ops"`
}

// listeningLineOf finds the listening line in the log (zero when there is none).
func listeningLineOf(log string) listeningLine {
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		var line listeningLine
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "listening" {
			return line
		}
	}
	return listeningLine{}
}

// tlsTransport trusts the dev CA and, when withCert, presents the dev client cert.
func (s *testServer) tlsTransport(withCert bool) *http.Transport {
	s.t.Helper()
	pki := devpki.Paths(filepath.Join(s.env["SKYGATE_DATA_DIR"], "pki"))
	caPEM, err := os.ReadFile(pki.CA)
	if err != nil {
		s.t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	tc := &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	if withCert {
		pair, err := tls.LoadX509KeyPair(pki.ClientCert, pki.ClientKey)
		if err != nil {
			s.t.Fatal(err)
		}
		tc.Certificates = []tls.Certificate{pair}
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = tc
	return tr
}

// config returns the configuration the server runs with, for tests that open its store.
func (s *testServer) config() *config.Config {
	s.t.Helper()
	cfg, err := config.Load(func(k string) string { return s.env[k] })
	if err != nil {
		s.t.Fatal(err)
	}
	return cfg
}

// do sends a request and returns the response with its body read.
func (s *testServer) do(c *http.Client, method, url string, body io.Reader, header map[string]string) (*http.Response, []byte) {
	s.t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		s.t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil && !errors.Is(err, io.EOF) {
		s.t.Fatal(err)
	}
	return resp, b
}

// engine is a storage engine the end-to-end tests run on.
type engine struct {
	name string
	env  func(tb testing.TB, overrides map[string]string) map[string]string
}

// engines are SQLite always and PostgreSQL when SKYGATE_TEST_DATABASE_URL is set (the
// PostgreSQL subtest skips with a message otherwise).
var engines = []engine{
	{"sqlite", testEnv},
	{"postgres", func(tb testing.TB, overrides map[string]string) map[string]string {
		env := testEnv(tb, overrides)
		env["SKYGATE_DATABASE_URL"] = pgtest.MustDSN(tb)
		return env
	}},
}

// forEachEngine runs f as a parallel subtest per engine.
func forEachEngine(t *testing.T, f func(t *testing.T, e engine)) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			f(t, e)
		})
	}
}
