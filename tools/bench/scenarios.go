package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/devpki"
)

// Scenario names.
const (
	scBaseline    = "baseline"     // bare net/http, fixed 2 KB body
	scBaselineReq = "baseline-req" // the same, sent the catalog scenarios' request
	scBaseline304 = "baseline-304" // bare net/http answering that request 304 with the catalog's 304 fields
	scSignLoop    = "es256-loop"   // ES256 JWT signatures in a loop, no HTTP
	scSignHTTP    = "es256-http"   // token endpoint without database: parse, sign, answer
	scInsertLoop  = "insert-loop"  // SQLite single-insert loop, synchronous=FULL
	scHydraToken  = "hydra-token"  // Ory Hydra's client_credentials token endpoint, on PostgreSQL
	scToken       = "token"        // POST /oauth/v2/token, client_credentials
	scIntrospect  = "introspect"   // POST /oauth/v2/introspect of the benchmark token, by its own client
	scCatalog200  = "catalog-200"  // authenticated catalog page
	scCatalog304  = "catalog-304"  // the same with If-None-Match
	scBooking     = "booking"      // create booking over mTLS with a fresh Idempotency-Key
	// scBookingPriced is create with reservation: the booking scenario for an account
	// with a price list, each create taking slot places and reserving its price.
	scBookingPriced = "booking-priced"
	scESIMOrder     = "esim-order" // POST /v2/b2b/esim/orders with a fresh Idempotency-Key
	scWebhooks      = "webhooks"   // webhook deliveries per second to a local receiver
)

// Engines.
const (
	engineSQLite   = "sqlite"
	enginePostgres = "postgres"
)

// engineScenarios need a skygate server; the others are references.
var engineScenarios = []string{scToken, scTokenPrivateKeyJWT, scIntrospect, scCatalog200, scCatalog304, scBooking, scBookingPriced, scESIMOrder, scWebhooks,
	scEventsRead, scEventsWake}

// benchMasterKey seals the benchmark servers' secrets.
const benchMasterKey = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

// benchRateLimit is the servers' account and token rate limit, per second: far above
// any load the harness makes, so that every request pays for the limiter and none is
// refused.
const benchRateLimit = "1e9"

// benchPublicURL is the issuer and audience of the benchmark servers' tokens.
const benchPublicURL = "http://skygate.bench"

// runAll runs every selected scenario: the references first, then each engine.
func (h *harness) runAll(ctx context.Context) (*report, error) {
	rep := &report{Machine: h.machine()}
	if h.wants(scBaseline) {
		if err := h.runRefServer(ctx, rep, scBaseline, nil, vegeta.Target{Method: http.MethodGet, URL: "/"}, http.StatusOK); err != nil {
			return nil, err
		}
	}
	if h.wants(scSignLoop) {
		if err := h.runLoop(ctx, rep, scSignLoop, "", "sign-loop"); err != nil {
			return nil, err
		}
	}
	if h.wants(scSignHTTP) {
		tokenReq := vegeta.Target{
			Method: http.MethodPost, URL: "/oauth/v2/token", Body: []byte("grant_type=client_credentials"),
			Header: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}},
		}
		if err := h.runRefServer(ctx, rep, scSignHTTP, []string{"-sign"}, tokenReq, http.StatusOK); err != nil {
			return nil, err
		}
	}
	if h.wants(scInsertLoop) {
		if err := h.runLoop(ctx, rep, scInsertLoop, engineSQLite, "insert-loop", "-path", filepath.Join(h.runDir, "insert-loop.db")); err != nil {
			return nil, err
		}
	}
	if h.wants(scHydraToken) {
		if err := h.runHydra(ctx, rep); err != nil {
			return nil, fmt.Errorf("%s: %w", scHydraToken, err)
		}
	}
	for _, e := range h.opts.engines {
		if err := h.runEngine(ctx, rep, e); err != nil {
			return nil, fmt.Errorf("%s: %w", e, err)
		}
	}
	rep.Machine.LoadAfter = loadAvg()
	rep.evaluate()
	return rep, nil
}

// childEnv is the environment of the reference subprocesses. The Go runtime's knobs
// pass through, so that their effect on a server can be measured.
func childEnv() []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "GOCOVERDIR", "GOGC", "GOMEMLIMIT", "GODEBUG"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// runRefServer measures a reference server of this binary.
func (h *harness) runRefServer(ctx context.Context, rep *report, name string, args []string, t vegeta.Target, want int) error {
	argv := append([]string{h.self, "baseline-server"}, args...)
	p, err := h.startProc(ctx, name, argv, childEnv(), filepath.Join(h.runDir, name+".log"), true)
	if err != nil {
		return err
	}
	defer p.stop()
	t.URL = p.http + t.URL
	m, err := h.measure(ctx, name, p, staticLoad(t, want, nil))
	if err != nil {
		return err
	}
	rep.add(httpRow(name, "", m))
	return nil
}

// runLoop runs a loop reference (sign-loop, insert-loop) pinned like the server.
func (h *harness) runLoop(ctx context.Context, rep *report, name, engine string, args ...string) error {
	argv := append([]string{h.self}, args...)
	argv = h.wrap(append(argv, "-duration", h.opts.duration.String()))
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env, cmd.Stdout, cmd.Stderr = childEnv(), &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w: %s", name, err, stderr.String())
	}
	var res loopResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil || res.Seconds == 0 {
		return fmt.Errorf("%s printed %q", name, stdout.String())
	}
	r := row{Scenario: name, Engine: engine, Kind: "loop", RPS: float64(res.Ops) / res.Seconds, ServerUtil: res.CPUSec / res.Seconds}
	if res.Ops > 0 {
		r.CPUPerReq = res.CPUSec / float64(res.Ops) * 1e6
	}
	if name == "insert-loop" {
		// One operation at a time: p50/p99 of a commit, the disk's latency floor.
		r.P50, r.P99 = res.P50, res.P99
		r.Note = joinNote(r.Note, fmt.Sprintf("p50/p99: one commit (with its fsync) of the loop, the latency floor of any write on this disk; p99.9 %.2f ms, max %.2f ms", res.P999, res.Max))
	}
	h.logf("%-16s %8.0f op/s  %6.1f µs CPU/op", name, r.RPS, r.CPUPerReq)
	rep.add(r)
	return nil
}

// server is a running skygate with what the scenarios need to talk to it.
type server struct {
	*proc
	engine  string
	dataDir string
	// databaseURL is the server's SKYGATE_DATABASE_URL.
	databaseURL string
	// env is the server's environment, for more `skygate bootstrap` runs.
	env   []string
	creds credentials
	token string
	// ref is the bare server of the catalog's interleaved comparison, nil without one.
	ref     *proc
	plain   *http.Client
	mtlsTLS *tls.Config
	mtlsCli *http.Client
}

// credentials is what `skygate bootstrap` prints.
type credentials struct {
	AccountID    string `json:"account_id"`
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
}

// runEngine starts skygate on one engine and runs the engine scenarios against it.
func (h *harness) runEngine(ctx context.Context, rep *report, engine string) error {
	var wanted []string
	for _, s := range engineScenarios {
		if h.wants(s) {
			wanted = append(wanted, s)
		}
	}
	if len(wanted) == 0 {
		return nil
	}
	dataDir := filepath.Join(h.runDir, engine)
	env := append(childEnv(),
		"SKYGATE_ENV=development",
		"SKYGATE_DATA_DIR="+dataDir,
		"SKYGATE_MASTER_KEY="+benchMasterKey,
		"SKYGATE_PUBLIC_URL="+benchPublicURL,
		"SKYGATE_LOG_LEVEL="+h.opts.logLevel,
		// The limiter runs on every request, as in production, at a rate no load
		// reaches: the figures include what limiting costs, not 429s.
		"SKYGATE_RATE_LIMIT="+benchRateLimit,
		"SKYGATE_TOKEN_RATE_LIMIT="+benchRateLimit,
		"SKYGATE_TOKEN_SOURCE_RATE_LIMIT="+benchRateLimit,
		// No load balancer waits for the server to drain between scenarios.
		"SKYGATE_SHUTDOWN_DELAY=0s",
	)
	databaseURL := "sqlite://" + filepath.Join(dataDir, "skygate.db")
	if engine == enginePostgres {
		if h.opts.pgDSN == "" {
			for _, s := range wanted {
				rep.add(row{Scenario: s, Engine: engine, Skipped: "no PostgreSQL: set SKYGATE_BENCH_DATABASE_URL or SKYGATE_TEST_DATABASE_URL"})
			}
			return nil
		}
		dsn, drop, err := freshSchema(ctx, h.opts.pgDSN)
		if err != nil {
			return err
		}
		defer drop()
		databaseURL = dsn
	}
	env = append(env, "SKYGATE_DATABASE_URL="+databaseURL)

	// bootstrap also migrates and makes the benchmark's own application.
	s := &server{engine: engine, dataDir: dataDir, databaseURL: databaseURL, env: slices.Clip(env)}
	creds, err := h.bootstrap(ctx, env, "bench")
	if err != nil {
		return err
	}
	s.creds = creds

	// The listening line is logged at info; at a quieter level the harness chooses
	// the ports and waits for /readyz instead.
	logPath := filepath.Join(h.runDir, engine+"-server.log")
	waitLog := h.opts.logLevel == "info" || h.opts.logLevel == "debug"
	var httpAddr, mtlsAddr, opsAddr string
	if waitLog {
		httpAddr, mtlsAddr, opsAddr = "127.0.0.1:0", "127.0.0.1:0", "127.0.0.1:0"
	} else {
		var err1, err2, err3 error
		httpAddr, err1 = freeAddr()
		mtlsAddr, err2 = freeAddr()
		opsAddr, err3 = freeAddr()
		if err1 != nil || err2 != nil || err3 != nil {
			return fmt.Errorf("free ports: %w", errors.Join(err1, err2, err3))
		}
	}
	env = append(env, "SKYGATE_HTTP_ADDR="+httpAddr, "SKYGATE_MTLS_ADDR="+mtlsAddr, "SKYGATE_OPS_ADDR="+opsAddr)
	if d := h.opts.profileDir; d != "" {
		h.profiles++
		env = append(env, "SKYGATE_CPU_PROFILE="+filepath.Join(d, fmt.Sprintf("%s-%d.pprof", engine, h.profiles)))
	}
	p, err := h.startProc(ctx, "skygate-"+engine, []string{h.server, "serve"}, env, logPath, waitLog)
	if err != nil {
		return err
	}
	defer p.stop()
	if !waitLog {
		p.http, p.mtls, p.ops = "http://"+httpAddr, "https://"+mtlsAddr, "http://"+opsAddr
	}
	s.proc = p
	if err := waitReady(ctx, p.http+"/readyz"); err != nil {
		return err
	}
	if err := s.prepare(ctx); err != nil {
		return err
	}

	// baseline-req: the bare baseline sent the catalog scenarios' request bytes (path
	// and query, this engine's token, Accept-Language), so that the catalog's ratio
	// compares like with like. Once per round, with the first engine: it needs a token.
	if h.wants(scBaselineReq) && rep.find(scBaselineReq, "") == nil && (h.wants(scCatalog200) || h.wants(scCatalog304)) {
		if err := h.runRefServer(ctx, rep, scBaselineReq, nil, s.catalogTarget("", h.opts.catalogURL), http.StatusOK); err != nil {
			return err
		}
	}
	// baseline-304: the bare server answering that request as the catalog answers a
	// matching If-None-Match, for what net/http itself charges for such a 304.
	if h.wants(scBaseline304) && rep.find(scBaseline304, "") == nil && h.wants(scCatalog304) {
		t := s.catalogTarget("", h.opts.catalogURL)
		t.Header.Set("If-None-Match", notModifiedETag)
		if err := h.runRefServer(ctx, rep, scBaseline304, []string{"-not-modified"}, t, http.StatusNotModified); err != nil {
			return err
		}
	}
	// The catalog's targets are judged against a bare server measured in slices
	// interleaved with the catalog's (paired.go); it runs beside skygate, idle between
	// its slices.
	if h.opts.pairedSlices > 0 && h.wants(scBaselineReq) && (h.wants(scCatalog200) || h.wants(scCatalog304)) {
		ref, err := h.startProc(ctx, scBaselineReq+"-"+engine, []string{h.self, "baseline-server"}, childEnv(),
			filepath.Join(h.runDir, engine+"-"+scBaselineReq+".log"), true)
		if err != nil {
			return err
		}
		defer ref.stop()
		s.ref = ref
	}
	// The pools' count of connections closed at their idle limit, before each scenario
	// (which is after the one before it).
	closed, err := s.idleClosed(ctx)
	if err != nil {
		return err
	}
	for _, name := range wanted {
		r, err := h.runScenario(ctx, s, name)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		after, err := s.idleClosed(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		r.Note = joinNote(r.Note, idleClosedNote(after-closed))
		closed = after
		rep.add(r)
	}
	return nil
}

// prepare gets a token and the mTLS client of the benchmark application.
func (s *server) prepare(ctx context.Context) error {
	s.plain = &http.Client{Timeout: 10 * time.Second}
	pki := devpki.Paths(filepath.Join(s.dataDir, "pki"))
	caPEM, err := os.ReadFile(pki.CA)
	if err != nil {
		return err
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	pair, err := tls.LoadX509KeyPair(pki.ClientCert, pki.ClientKey)
	if err != nil {
		return err
	}
	// A session cache, as partners' TLS clients keep one: a new connection resumes a
	// session instead of a full handshake with certificate checks.
	s.mtlsTLS = &tls.Config{RootCAs: roots, Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12,
		ClientSessionCache: tls.NewLRUClientSessionCache(0)}
	s.mtlsCli = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: s.mtlsTLS}}
	s.token, err = s.getToken(ctx, s.creds)
	return err
}

// getToken obtains a client_credentials token for c.
func (s *server) getToken(ctx context.Context, c credentials) (string, error) {
	return fetchToken(ctx, s.plain, tokenTarget(s.http, c))
}

// fetchToken sends the token request t and returns the access token of a 200 answer.
func fetchToken(ctx context.Context, cli *http.Client, t vegeta.Target) (string, error) {
	resp, body, err := do(ctx, cli, t)
	if err != nil {
		return "", err
	}
	var tr struct {
		AccessToken string `json:"access_token"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &tr) != nil || tr.AccessToken == "" {
		return "", fmt.Errorf("token: %d %.300s", resp.StatusCode, body)
	}
	return tr.AccessToken, nil
}

func tokenTarget(base string, c credentials) vegeta.Target {
	return clientCredentialsTarget(base+"/oauth/v2/token", c, "grant_type=client_credentials")
}

// clientCredentialsTarget POSTs form to tokenURL with c in HTTP Basic, each part
// form-encoded first as RFC 6749 §2.3.1 asks.
func clientCredentialsTarget(tokenURL string, c credentials, form string) vegeta.Target {
	basic := base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(c.ClientID) + ":" + url.QueryEscape(c.ClientSecret)))
	return vegeta.Target{
		Method: http.MethodPost, URL: tokenURL, Body: []byte(form),
		Header: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Authorization": {"Basic " + basic}},
	}
}

// do sends one request outside the load and returns the response with its body.
func do(ctx context.Context, c *http.Client, t vegeta.Target) (*http.Response, []byte, error) {
	req, err := t.Request()
	if err != nil {
		return nil, nil, err
	}
	resp, err := c.Do(req.WithContext(ctx))
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = resp.Body.Close() }() // ReadAll's error is checked
	body, err := io.ReadAll(resp.Body)
	return resp, body, err
}

func (s *server) bearer(t vegeta.Target) vegeta.Target {
	if t.Header == nil {
		t.Header = http.Header{}
	}
	t.Header.Set("Authorization", "Bearer "+s.token)
	return t
}

// catalogTarget is the request of the catalog scenarios (and of baseline-req): path at
// base with the benchmark token and a Russian-first Accept-Language.
func (s *server) catalogTarget(base, path string) vegeta.Target {
	return s.bearer(vegeta.Target{Method: http.MethodGet, URL: base + path,
		Header: http.Header{"Accept-Language": {"ru-RU,ru;q=0.9,en;q=0.8"}}})
}

// routeMissing reports whether the router has no route at path: an unauthenticated
// request to a route gets 401, to nothing 404.
func (s *server) routeMissing(ctx context.Context, method, path string) (bool, error) {
	resp, _, err := do(ctx, s.plain, vegeta.Target{Method: method, URL: s.http + path})
	if err != nil {
		return false, err
	}
	return resp.StatusCode == http.StatusNotFound, nil
}

// runScenario measures one engine scenario.
func (h *harness) runScenario(ctx context.Context, s *server, name string) (row, error) {
	label := name + "/" + s.engine
	switch name {
	case scToken:
		m, err := h.measure(ctx, label, s.proc, staticLoad(tokenTarget(s.http, s.creds), http.StatusOK, nil))
		return httpRow(name, s.engine, m), err

	case scTokenPrivateKeyJWT:
		l, err := h.privateKeyJWTLoad(ctx, s)
		if err != nil {
			return row{}, err
		}
		m, err := h.measure(ctx, label, s.proc, l)
		r := httpRow(name, s.engine, m)
		r.Note = "each request a new ES256 assertion (new jti), signed by the generator"
		return r, err

	case scIntrospect:
		t := clientCredentialsTarget(s.http+"/oauth/v2/introspect", s.creds, "token="+s.token)
		resp, body, err := do(ctx, s.plain, t)
		if err != nil {
			return row{}, err
		}
		if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(`"active":true`)) {
			return row{}, fmt.Errorf("introspect: %d %.300s", resp.StatusCode, body)
		}
		m, err := h.measure(ctx, label, s.proc, staticLoad(t, http.StatusOK, nil))
		r := httpRow(name, s.engine, m)
		r.Note = "an active token, client_secret_basic; the verifier's cache warm"
		return r, err

	case scCatalog200, scCatalog304:
		t := s.catalogTarget(s.http, h.opts.catalogURL)
		resp, body, err := do(ctx, s.plain, t)
		if err != nil {
			return row{}, err
		}
		if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") == "" {
			return row{}, fmt.Errorf("catalog: %d %.300s", resp.StatusCode, body)
		}
		want := http.StatusOK
		if name == scCatalog304 {
			t.Header.Set("If-None-Match", resp.Header.Get("ETag"))
			want = http.StatusNotModified
		}
		l := staticLoad(t, want, nil)
		m, err := h.measure(ctx, label, s.proc, l)
		if err != nil {
			return row{}, err
		}
		r := httpRow(name, s.engine, m)
		r.Note = fmt.Sprintf("%d-byte body", len(body))
		if name == scCatalog304 {
			r.Note = "no body"
		}
		if s.ref != nil {
			// The bare server gets the same request bytes (If-None-Match too) and
			// answers its 2 KB.
			rt := t
			rt.URL = s.ref.http + h.opts.catalogURL
			if r.Paired, err = h.paired(ctx, label, scBaselineReq, s.ref, staticLoad(rt, http.StatusOK, nil), s.proc, l); err != nil {
				return row{}, err
			}
			r.Note = joinNote(r.Note, r.Paired.note())
		}
		return r, nil

	case scBooking:
		l, err := s.bookingLoad(ctx)
		if err != nil {
			return row{}, err
		}
		m, err := h.measure(ctx, label, s.proc, l)
		r := httpRow(name, s.engine, m)
		r.Note = "mTLS, keep-alive; each request a new booking"
		return r, err

	case scBookingPriced:
		return h.bookingPriced(ctx, s, label)

	case scESIMOrder:
		return h.esimOrder(ctx, s, label)

	case scWebhooks:
		return h.webhookDeliveries(ctx, s, label)

	case scEventsRead:
		return h.eventsRead(ctx, s, label)

	case scEventsWake:
		return h.eventsWake(ctx, s)
	}
	return row{}, fmt.Errorf("unknown scenario %q", name)
}

// bootstrap runs `skygate bootstrap` in the server's environment env: it migrates,
// creates the account and an application with every B2B scope, and returns its
// credentials.
func (h *harness) bootstrap(ctx context.Context, env []string, account string) (credentials, error) {
	var out, errOut bytes.Buffer
	boot := exec.CommandContext(ctx, h.server, "bootstrap", "--account", account, "--scopes", strings.Join(skygate.B2BScopes, " "))
	boot.Env, boot.Stdout, boot.Stderr = append(env, "SKYGATE_LOG_LEVEL=warn"), &out, &errOut
	if err := boot.Run(); err != nil {
		return credentials{}, fmt.Errorf("bootstrap: %w: %s", err, errOut.String())
	}
	var c credentials
	if err := json.Unmarshal(out.Bytes(), &c); err != nil || c.ClientSecret == "" {
		return credentials{}, fmt.Errorf("bootstrap printed %q", out.String())
	}
	return c, nil
}

// tasFastTrack returns the id of the first fast-track at TAS.
func (s *server) tasFastTrack(ctx context.Context) (string, error) {
	resp, body, err := do(ctx, s.plain, s.bearer(vegeta.Target{Method: http.MethodGet, URL: s.http + "/v2/catalog/fast-tracks?iata=TAS&limit=1"}))
	if err != nil {
		return "", err
	}
	var page struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &page) != nil || len(page.Data) == 0 {
		return "", fmt.Errorf("no fast-track at TAS: %d %.300s", resp.StatusCode, body)
	}
	return page.Data[0].ID, nil
}

// bookingLoad creates a booking per request, each with a fresh Idempotency-Key, over
// the mutual-TLS listener with the development client certificate.
func (s *server) bookingLoad(ctx context.Context) (httpLoad, error) {
	ft, err := s.tasFastTrack(ctx)
	if err != nil {
		return httpLoad{}, err
	}
	date := time.Now().UTC().AddDate(0, 0, 7).Format(time.DateOnly)
	reqBody := []byte(fmt.Sprintf(`{"fast_track_id":%q,"service_date":%q,"flight":{"number":"HY601","direction":"departure"},`+
		`"passengers":[{"first_name":"Aziza","last_name":"Karimova","date_of_birth":"1990-04-01","passport_number":"FA1234567",`+
		`"nationality":"UZ","email":"aziza@example.com","phone":"+998901234567"}],"partner_reference":"BENCH"}`, ft, date))
	return s.idempotentLoad(s.mtls+"/v2/b2b/booking/fast-tracks", reqBody, http.StatusAccepted, s.mtlsTLS), nil
}

// idempotentLoad POSTs body to url with a fresh Idempotency-Key per request.
func (s *server) idempotentLoad(url string, body []byte, want int, tc *tls.Config) httpLoad {
	var seq atomic.Int64
	run := time.Now().UnixNano()
	auth := "Bearer " + s.token
	return httpLoad{want: want, tls: tc, targeter: func() vegeta.Targeter {
		return func(t *vegeta.Target) error {
			t.Method, t.URL, t.Body = http.MethodPost, url, body
			t.Header = http.Header{
				"Authorization":   {auth},
				"Content-Type":    {"application/json"},
				"Idempotency-Key": {fmt.Sprintf("bench-%x-%d", run, seq.Add(1))},
			}
			return nil
		}
	}}
}
