package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite"
)

// The reference workloads. Each runs as a subprocess of this binary, pinned like the
// server, so that "× baseline" compares like with like.

// baselineBody is the fixed 2 KB body of the bare net/http baseline.
var baselineBody = bytes.Repeat([]byte("0123456789abcdef"), 2048/16)

// baselineServer serves the physical baseline: a bare net/http handler returning a
// fixed 2 KB body. With -sign it is instead a token endpoint without database or
// client authentication: every request gets a fresh ES256-signed JWT. It logs the same
// listening line as skygate and runs until ctx ends.
func baselineServer(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("baseline-server", flag.ContinueOnError)
	sign := fs.Bool("sign", false, "answer with an ES256-signed token instead of the fixed body")
	notModified := fs.Bool("not-modified", false, "answer 304 Not Modified with the header fields of the catalog's 304 instead of the fixed body")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "2048")
		_, _ = w.Write(baselineBody)
	})
	if *sign && *notModified {
		return errors.New("baseline-server: -sign and -not-modified exclude each other")
	}
	if *notModified {
		h = newNotModified(ctx)
	}
	if *sign {
		s, err := newSigner()
		if err != nil {
			return err
		}
		h = s
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	line, _ := json.Marshal(listeningLine{Msg: "listening", HTTP: "http://" + ln.Addr().String()})
	_, _ = fmt.Fprintf(stderr, "%s\n", line)
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	case err := <-errc:
		return err
	}
}

// notModified answers every request as skygate answers a catalog page's conditional
// GET that matches: 304 with the five header fields RFC 9110 §15.4.5 and the contract
// ask of it (ETag, Vary, Cache-Control, Date, X-Request-Id), written as skygate writes
// them (canonical keys, shared values, Date formatted once a second), and nothing
// else. It is net/http's own cost of that answer: what the catalog-304 scenario pays
// beyond it is skygate's.
type notModified struct {
	date atomic.Pointer[[]string]
}

// notModifiedETag is the ETag baseline-304 answers with; its load sends it back.
const notModifiedETag = `W/"ru-7c1d5e3a9b2f4c60"`

var (
	nmETag         = []string{notModifiedETag}
	nmVary         = []string{"Accept-Encoding, Accept-Language"}
	nmCacheControl = []string{"private, no-cache"}
	nmRequestID    = []string{"5f0c2a9e41b7d386-1"}
)

func newNotModified(ctx context.Context) *notModified {
	n := &notModified{}
	n.tick(time.Now())
	go func() {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.C:
				n.tick(now)
			}
		}
	}()
	return n
}

func (n *notModified) tick(now time.Time) {
	v := []string{now.UTC().Format(http.TimeFormat)}
	n.date.Store(&v)
}

func (n *notModified) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	h["X-Request-Id"] = nmRequestID
	h["Vary"] = nmVary
	h["Cache-Control"] = nmCacheControl
	h["Etag"] = nmETag
	h["Date"] = *n.date.Load()
	w.WriteHeader(http.StatusNotModified)
}

// signer issues JWTs signed with ES256 and nothing else: the ceiling of a token
// endpoint on this machine.
type signer struct {
	key    *ecdsa.PrivateKey
	header string
}

func newSigner() (*signer, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	return &signer{key: key, header: base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"ES256","kid":"bench","typ":"at+jwt"}`))}, nil
}

// token returns a JWT about as large as skygate's access tokens.
func (s *signer) token(now time.Time) (string, error) {
	claims := fmt.Sprintf(`{"iss":"http://skygate.bench","sub":"sk_bench_client","aud":"http://skygate.bench","exp":%d,"iat":%d,"jti":"%d","client_id":"sk_bench_client","account_id":"0190f3c2-7d52-7bd6-a3c4-0a1b2c3d4e5f","scope":"catalog.lounges:read catalog.fasttrack:read booking.fasttrack:write booking.fasttrack:read"}`,
		now.Unix()+3600, now.Unix(), now.UnixNano())
	signingInput := s.header + "." + base64.RawURLEncoding.EncodeToString([]byte(claims))
	digest := sha256.Sum256([]byte(signingInput))
	r, ss, err := ecdsa.Sign(rand.Reader, s.key, digest[:])
	if err != nil {
		return "", err
	}
	var sig [64]byte
	r.FillBytes(sig[:32])
	ss.FillBytes(sig[32:])
	return signingInput + "." + base64.RawURLEncoding.EncodeToString(sig[:]), nil
}

func (s *signer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	if r.PostForm.Get("grant_type") != "client_credentials" {
		http.Error(w, `{"error":"unsupported_grant_type"}`, http.StatusBadRequest)
		return
	}
	tok, err := s.token(time.Now())
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	body, _ := json.Marshal(map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	_, _ = w.Write(body)
}

// loopResult is what insert-loop and sign-loop print: operations done in the time,
// and the CPU time they took.
type loopResult struct {
	Ops     int64   `json:"ops"`
	Seconds float64 `json:"seconds"`
	CPUSec  float64 `json:"cpu_seconds"`
	// P50 and P99 are the durations of one operation, in ms: for insert-loop, what a
	// commit (and its fsync) takes on the disk, the floor of a write's latency.
	P50 float64 `json:"p50_ms"`
	P99 float64 `json:"p99_ms"`
	// P999 and Max are the tail: a write that waits for a commit waits for its fsync,
	// so the disk's rare slow fsyncs bound the p99 of writes under load.
	P999 float64 `json:"p999_ms"`
	Max  float64 `json:"max_ms"`
}

func parseLoopFlags(name string, args []string, extra func(*flag.FlagSet)) (time.Duration, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	d := fs.Duration("duration", 5*time.Second, "how long to loop")
	if extra != nil {
		extra(fs)
	}
	if err := fs.Parse(args); err != nil {
		return 0, err
	}
	if *d <= 0 {
		return 0, errors.New("-duration must be positive")
	}
	return *d, nil
}

// loop calls op until d has passed and prints the loopResult as JSON.
func loop(ctx context.Context, d time.Duration, stdout io.Writer, op func() error) error {
	cpu0, start := selfCPU(), time.Now()
	var n int64
	took := make([]time.Duration, 0, 1<<16)
	for time.Since(start) < d && ctx.Err() == nil {
		t0 := time.Now()
		if err := op(); err != nil {
			return err
		}
		took = append(took, time.Since(t0))
		n++
	}
	slices.Sort(took)
	res := loopResult{Ops: n, Seconds: time.Since(start).Seconds(), CPUSec: (selfCPU() - cpu0).Seconds(),
		P50: quantileMS(took, .50), P99: quantileMS(took, .99), P999: quantileMS(took, .999), Max: quantileMS(took, 1)}
	return json.NewEncoder(stdout).Encode(res)
}

// signLoop signs JWTs with ES256 in a loop on one goroutine: the raw cost of the
// signature every token pays.
func signLoop(ctx context.Context, args []string, stdout io.Writer) error {
	d, err := parseLoopFlags("sign-loop", args, nil)
	if err != nil {
		return err
	}
	s, err := newSigner()
	if err != nil {
		return err
	}
	now := time.Now()
	return loop(ctx, d, stdout, func() error {
		_, err := s.token(now)
		return err
	})
}

// insertLoop inserts one row per transaction into a tiny SQLite table with the
// pragmas skygate uses (WAL, synchronous=FULL) and the same driver: the floor under
// any durable create on this disk.
func insertLoop(ctx context.Context, args []string, stdout io.Writer) error {
	var path string
	d, err := parseLoopFlags("insert-loop", args, func(fs *flag.FlagSet) {
		fs.StringVar(&path, "path", "", "database file (created)")
	})
	if err != nil {
		return err
	}
	if path == "" {
		return errors.New("insert-loop: -path is required")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	q := url.Values{"_pragma": {"busy_timeout(10000)", "journal_mode(WAL)", "synchronous(FULL)"}, "_txlock": {"immediate"}}
	db, err := sql.Open("sqlite", (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: q.Encode()}).String())
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }() // a throwaway database
	db.SetMaxOpenConns(1)
	// An empty table every time, also when a file of an earlier round is there.
	for _, q := range []string{`DROP TABLE IF EXISTS t`, `CREATE TABLE t (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, body TEXT NOT NULL)`} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	body := string(bytes.Repeat([]byte("x"), 512))
	var i int64
	return loop(ctx, d, stdout, func() error {
		i++
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO t (key, body) VALUES (?, ?)`, "k"+strconv.FormatInt(i, 10), body); err != nil {
			_ = tx.Rollback() // err is the one to report
			return err
		}
		return tx.Commit()
	})
}
