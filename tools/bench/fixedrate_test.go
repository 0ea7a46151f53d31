package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// TestRawRequest: the serialized request is the target, as net/http reads it.
func TestRawRequest(t *testing.T) {
	t.Parallel()
	tgt := vegeta.Target{Method: http.MethodPost, URL: "http://127.0.0.1:8080/oauth/v2/token?x=1", Body: []byte("grant_type=client_credentials"),
		Header: http.Header{"Authorization": {"Basic YTpi"}, "Content-Type": {"application/x-www-form-urlencoded"}}}
	raw, addr, err := rawRequest(tgt, false)
	if err != nil || addr != "127.0.0.1:8080" {
		t.Fatalf("rawRequest: %q, %v", addr, err)
	}
	req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(string(raw))))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(req.Body)
	if req.Method != tgt.Method || req.RequestURI != "/oauth/v2/token?x=1" || req.Host != addr || string(body) != string(tgt.Body) ||
		req.Header.Get("Authorization") != "Basic YTpi" || req.Close {
		t.Errorf("read back %s %s host %q body %q header %v close %v", req.Method, req.RequestURI, req.Host, body, req.Header, req.Close)
	}
	if _, _, err := rawRequest(vegeta.Target{Method: http.MethodGet, URL: "https://127.0.0.1/"}, false); err == nil {
		t.Error("an https URL was accepted for plain HTTP")
	}
	if _, _, err := rawRequest(vegeta.Target{Method: http.MethodGet, URL: "http://127.0.0.1/"}, true); err == nil {
		t.Error("an http URL was accepted for TLS")
	}
}

// TestReadResponse: responses are delimited by Content-Length, or have no body by
// their status; what cannot be delimited is an error, not a hang.
func TestReadResponse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		in        string
		head      bool
		status    int
		close     bool
		err       error
		remaining string
	}{
		{"200 with a body", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\ncontent-type: text/plain\r\n\r\nhelloNEXT", false, 200, false, nil, "NEXT"},
		{"304", "HTTP/1.1 304 Not Modified\r\nEtag: \"x\"\r\n\r\nNEXT", false, 304, false, nil, "NEXT"},
		{"HEAD", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nNEXT", true, 200, false, nil, "NEXT"},
		{"close", "HTTP/1.1 429 Too Many Requests\r\nconnection: Close\r\ncontent-length: 0\r\n\r\n", false, 429, true, nil, ""},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", false, 200, false, errUnframed, ""},
		{"no length", "HTTP/1.1 200 OK\r\n\r\nhello", false, 200, false, errUnframed, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			br := bufio.NewReader(strings.NewReader(tt.in))
			status, closing, err := readResponse(br, tt.head)
			if status != tt.status || closing != tt.close || !errors.Is(err, tt.err) {
				t.Fatalf("= %d, %v, %v; want %d, %v, %v", status, closing, err, tt.status, tt.close, tt.err)
			}
			if rest, _ := io.ReadAll(br); err == nil && string(rest) != tt.remaining {
				t.Errorf("left %q, want %q", rest, tt.remaining)
			}
		})
	}
	for _, bad := range []string{"", "HTTP/1.1 2xx OK\r\n\r\n", "SPDY/3 200 OK\r\n\r\n", "HTTP/1.1 200 OK\r\nno colon\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n"} {
		if _, _, err := readResponse(bufio.NewReader(strings.NewReader(bad)), false); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestFixedRate runs the generator against a real server: it sends the asked rate,
// counts only what falls due after the skip, and a server that answers slowly shows
// in the latencies (they run from when a request was due).
func TestFixedRate(t *testing.T) {
	t.Parallel()
	var served, slow atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		if r.URL.Path == "/slow" {
			slow.Add(1)
			time.Sleep(20 * time.Millisecond)
		}
		w.Header().Set("Content-Length", "2")
		_, _ = io.WriteString(w, "ok")
	}))
	defer srv.Close()
	h, p := selfHarness(t)

	ph, err := h.attackFixedRate(t.Context(), p, staticLoad(vegeta.Target{Method: http.MethodGet, URL: srv.URL + "/"}, 200, nil), 1000, 4, 500*time.Millisecond, 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if ph.Generator != genFixedRate || ph.Requests < 450 || ph.Requests > 550 || ph.OK != ph.Requests || ph.Statuses["200"] != int(ph.OK) {
		t.Errorf("phase %+v: want about 500 measured requests, all 200", ph)
	}
	if n := served.Load(); n < 650 || n > 750 {
		t.Errorf("the server saw %d requests, want about 700 (skip included)", n)
	}
	if ph.P99 <= 0 || ph.P50 > ph.P99 {
		t.Errorf("latencies p50 %v p99 %v", ph.P50, ph.P99)
	}

	// 20 ms answers at 200/s, starting with one connection: the open loop opens more
	// instead of waiting, and every latency holds the 20 ms.
	ph, err = h.attackFixedRate(t.Context(), p, staticLoad(vegeta.Target{Method: http.MethodGet, URL: srv.URL + "/slow"}, 200, nil), 200, 1, 500*time.Millisecond, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ph.Workers < 3 || ph.OK < 90 || ph.P50 < 20 {
		t.Errorf("slow server: %+v; want more connections than one and p50 ≥ 20 ms", ph)
	}
	// A wrong status is counted, not taken for success.
	ph, err = h.attackFixedRate(t.Context(), p, staticLoad(vegeta.Target{Method: http.MethodGet, URL: srv.URL + "/"}, 304, nil), 100, 2, 200*time.Millisecond, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ph.OK != 0 || ph.Statuses["200"] == 0 {
		t.Errorf("want 304, got %+v", ph)
	}
}

// TestFixedRateTLS: over TLS every request is the targeter's next one, on a pool that
// stays at the workers asked for; a slow server makes requests wait for a connection,
// and the wait is in their latency (counted from when each was due).
func TestFixedRateTLS(t *testing.T) {
	t.Parallel()
	var (
		keys  sync.Map
		conns atomic.Int64
	)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, dup := keys.LoadOrStore(r.Header.Get("Idempotency-Key"), true); dup {
			w.WriteHeader(http.StatusConflict)
			return
		}
		time.Sleep(20 * time.Millisecond)
		w.WriteHeader(http.StatusAccepted)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.StartTLS()
	defer srv.Close()
	h, p := selfHarness(t)
	var seq atomic.Int64
	l := httpLoad{want: http.StatusAccepted, tls: srv.Client().Transport.(*http.Transport).TLSClientConfig,
		targeter: func() vegeta.Targeter {
			return func(tgt *vegeta.Target) error {
				tgt.Method, tgt.URL = http.MethodPost, srv.URL+"/"
				tgt.Header = http.Header{"Idempotency-Key": {strconv.FormatInt(seq.Add(1), 10)}}
				return nil
			}
		}}
	// 200/s of 20 ms answers need 4 connections; the pool has 2, so requests queue here.
	ph, err := h.attackFixedRate(t.Context(), p, l, 200, 2, 500*time.Millisecond, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ph.Workers != 2 || conns.Load() != 2 {
		t.Errorf("%d connections in the phase, %d at the server; want the pool of 2", ph.Workers, conns.Load())
	}
	if ph.OK == 0 || ph.Statuses["409"] != 0 || ph.OK != ph.Requests {
		t.Errorf("phase %+v: want every request new and accepted", ph)
	}
	if ph.P99 < 100 {
		t.Errorf("p99 %.1f ms: the queue for the 2 connections is not in the latencies", ph.P99)
	}
}

// selfHarness is a harness whose "server" process is the test itself, for the CPU
// figures.
func selfHarness(t *testing.T) (*harness, *proc) {
	t.Helper()
	self, err := os.FindProcess(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	return &harness{opts: options{generator: genAuto}}, &proc{cmd: &exec.Cmd{Process: self}}
}

// TestSlowSpread: slow requests are counted by the second they fell due in, with the
// worst second named; none gives nil, which the log prints as such.
func TestSlowSpread(t *testing.T) {
	t.Parallel()
	if f := slowSpread(nil); f != nil || f.String() != "none over 10 ms" {
		t.Errorf("none: %+v %q", f, f.String())
	}
	s := time.Second
	f := slowSpread([]time.Duration{s / 2, 2*s + 1, 2*s + s/2, 2 * s, 4*s + 9*s/10})
	want := slowFigures{Requests: 5, Seconds: 3, Worst: 3, WorstAt: 2}
	if f == nil || *f != want {
		t.Fatalf("slowSpread = %+v, want %+v", f, want)
	}
	if got := f.String(); got != "5 over 10 ms in 3 s, 3 in second 2" {
		t.Errorf("String = %q", got)
	}
}
