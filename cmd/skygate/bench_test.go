package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/config"
	"github.com/skygate/skygate/internal/devpki"
	"github.com/skygate/skygate/internal/httpapi"
	"github.com/skygate/skygate/internal/identity"
)

// benchApp assembles the real service in-process (SQLite in a temporary directory) so
// benchmarks measure the whole handler chain without network noise. It logs as serve
// does, JSON at info (one access-log line per request), into a writer that discards.
func benchApp(b *testing.B) (*app, credentials) {
	b.Helper()
	return benchAppLimited(b, "0")
}

// benchAppLimited is benchApp with the account and token rate limits at rate per
// second ("0": none); a rate no benchmark reaches measures what limiting costs.
func benchAppLimited(b *testing.B, rate string) (*app, credentials) {
	b.Helper()
	env := testEnv(b, map[string]string{"SKYGATE_RATE_LIMIT": rate, "SKYGATE_TOKEN_RATE_LIMIT": rate})
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		b.Fatal(err)
	}
	a, err := newApp(context.Background(), cfg, newLogger(io.Discard, "info"), httpapi.ClientCertConfig{}, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { a.db.Close() })
	return a, benchAccount(b, a, "bench", catalogScopes)
}

// benchAccount bootstraps an account with one application of the scopes.
func benchAccount(b *testing.B, a *app, name string, scopes []string) credentials {
	b.Helper()
	res, err := a.identity.Bootstrap(context.Background(), skygate.Actor{Subject: skygate.ActorBootstrap},
		identity.Bootstrap{Account: name, Scopes: scopes})
	if err != nil {
		b.Fatal(err)
	}
	return credentials{AccountID: res.Account.ID, ClientID: res.Application.ClientID, ClientSecret: res.ClientSecret}
}

func benchToken(b *testing.B, a *app, c credentials) string {
	b.Helper()
	req := tokenRequest(c)
	rec := httptest.NewRecorder()
	a.server.ServeHTTP(rec, req)
	if rec.Code != 200 {
		b.Fatalf("token: %d %s", rec.Code, rec.Body)
	}
	tok := rec.Body.String()
	i := strings.Index(tok, `"access_token":"`) + len(`"access_token":"`)
	return tok[i : i+strings.IndexByte(tok[i:], '"')]
}

func tokenRequest(c credentials) *http.Request {
	req := httptest.NewRequest(http.MethodPost, "/oauth/v2/token", strings.NewReader("grant_type=client_credentials"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(url.QueryEscape(c.ClientID), url.QueryEscape(c.ClientSecret))
	return req
}

// discard is a ResponseWriter that keeps only the status, so the benchmark measures
// the server, not a recorder's buffer.
type discard struct {
	h      http.Header
	status int
}

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(p []byte) (int, error) { return len(p), nil }
func (d *discard) WriteHeader(s int)           { d.status = s }

func benchServe(b *testing.B, h http.Handler, newReq func() *http.Request, want int) {
	b.Helper()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		w := &discard{h: http.Header{}}
		for pb.Next() {
			clear(w.h)
			w.status = 0
			h.ServeHTTP(w, newReq())
			if w.status != want {
				b.Errorf("status %d, want %d", w.status, want)
				return
			}
		}
	})
}

// BenchmarkTokenEndpoint issues client_credentials tokens through the whole stack.
func BenchmarkTokenEndpoint(b *testing.B) {
	a, c := benchApp(b)
	benchServe(b, a.server, func() *http.Request { return tokenRequest(c) }, 200)
}

// BenchmarkAuthenticatedCatalogGET is a catalog page behind the auth middleware with
// a cached verified token: no ECDSA verify and no JSON encoding per request.
func BenchmarkAuthenticatedCatalogGET(b *testing.B) {
	a, c := benchApp(b)
	tok := benchToken(b, a, c)
	r := httptest.NewRequest(http.MethodGet, "/v2/catalog/lounges?limit=5&iata=TAS", nil)
	r.Header.Set("Authorization", "Bearer "+tok)
	r.Header.Set("Accept-Language", "ru-RU,ru;q=0.9,en;q=0.8")
	benchServe(b, a.server, sameRequest(r), 200)
}

// BenchmarkCatalogEncoding is BenchmarkAuthenticatedCatalogGET's page (about 10 KB
// of JSON) without Accept-Encoding, as the load harness asks for it, and with gzip, as
// browsers and most HTTP clients do. cpu-ns/op is the process's CPU time per request,
// which a busy machine disturbs less than ns/op.
func BenchmarkCatalogEncoding(b *testing.B) {
	a, c := benchApp(b)
	tok := benchToken(b, a, c)
	for _, enc := range []string{"", "gzip"} {
		name := enc
		if name == "" {
			name = "identity"
		}
		b.Run(name, func(b *testing.B) {
			r := httptest.NewRequest(http.MethodGet, "/v2/catalog/lounges?limit=5&iata=TAS", nil)
			r.Header.Set("Authorization", "Bearer "+tok)
			r.Header.Set("Accept-Language", "ru-RU,ru;q=0.9,en;q=0.8")
			if enc != "" {
				r.Header.Set("Accept-Encoding", enc)
			}
			start := processCPU()
			benchServe(b, a.server, sameRequest(r), 200)
			b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}

// processCPU is the CPU time this process has used, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// sameRequest serves r to every iteration: building a request costs about as much as
// serving a cached page. The server changes nothing in the request it is given but
// r.Pattern, to the same route each time, and a GET has no body to consume.
func sameRequest(r *http.Request) func() *http.Request {
	return func() *http.Request { return r }
}

// BenchmarkAuthenticatedCatalog304 is the same request answered Not Modified.
func BenchmarkAuthenticatedCatalog304(b *testing.B) {
	for _, bb := range []struct{ name, rate string }{{"unlimited", "0"}, {"limited", "1e9"}} {
		b.Run(bb.name, func(b *testing.B) { benchCatalog304(b, bb.rate) })
	}
}

func benchCatalog304(b *testing.B, rate string) {
	a, c := benchAppLimited(b, rate)
	tok := benchToken(b, a, c)
	newReq := func() *http.Request {
		r := httptest.NewRequest(http.MethodGet, "/v2/catalog/lounges?limit=5&iata=TAS", nil)
		r.Header.Set("Authorization", "Bearer "+tok)
		return r
	}
	rec := httptest.NewRecorder()
	a.server.ServeHTTP(rec, newReq())
	etag := rec.Header().Get("ETag")
	r := newReq()
	r.Header.Set("If-None-Match", etag)
	benchServe(b, a.server, sameRequest(r), 304)
}

// BenchmarkCreateBooking creates bookings through the whole handler chain (as if over
// mTLS: the request carries a verified client certificate) with a fresh
// Idempotency-Key each, in parallel so that SQLite's group commit batches them, with
// the booking worker issuing them meanwhile as in serve. Its CPU profile is the
// booking scenario's without TLS and the network.
func BenchmarkCreateBooking(b *testing.B) {
	a, _ := benchApp(b)
	tok := benchToken(b, a, benchAccount(b, a, "bench-booking", bookingScopes))
	pki, err := devpki.Ensure(filepath.Join(b.TempDir(), "pki"), time.Now())
	if err != nil {
		b.Fatal(err)
	}
	pair, err := tls.LoadX509KeyPair(pki.ClientCert, pki.ClientKey)
	if err != nil {
		b.Fatal(err)
	}
	cert, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		b.Fatal(err)
	}
	state := &tls.ConnectionState{PeerCertificates: []*x509.Certificate{cert}, VerifiedChains: [][]*x509.Certificate{{cert}}}
	rec := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, "/v2/catalog/fast-tracks?iata=TAS&limit=1", nil)
	r.Header.Set("Authorization", "Bearer "+benchToken(b, a, benchAccount(b, a, "bench-catalog", []string{skygate.ScopeCatalogFastTrackRead})))
	a.server.ServeHTTP(rec, r)
	ft := mustPage(b, rec.Body.Bytes()).Data[0].ID
	body := bookingBody(ft, "BENCH")

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = a.worker.Run(ctx) }()
	b.Cleanup(func() { cancel(); <-done })

	var seq atomic.Int64
	b.SetParallelism(32) // many clients, as over the network: their writes share commits
	benchServe(b, a.server, func() *http.Request {
		r := httptest.NewRequest(http.MethodPost, bookingPath, strings.NewReader(body))
		r.TLS = state
		r.Header.Set("Authorization", "Bearer "+tok)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Idempotency-Key", "bench-"+strconv.FormatInt(seq.Add(1), 10))
		return r
	}, http.StatusAccepted)
}
