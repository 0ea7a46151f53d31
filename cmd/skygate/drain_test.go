package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// drainLoad is steady traffic against the plain listener: a catalog GET and a token
// POST in turn, from workers on kept-alive connections and workers that open a new
// connection for every request. It records every request that failed.
type drainLoad struct {
	mu                 sync.Mutex
	failures           []string
	total, afterSignal int
	reused             int // requests over a connection kept alive
	closing            int // answers on kept-alive connections after the signal with Connection: close
	signalled          bool
}

// record counts the outcome of a request, which must be 200. keptAlive says its client
// keeps connections alive, so that Connection: close in the answer is the server's
// doing; reused that it went over a connection kept alive.
func (l *drainLoad) record(what string, keptAlive, reused bool, resp *http.Response, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total++
	if reused {
		l.reused++
	}
	if l.signalled {
		l.afterSignal++
	}
	switch {
	case err != nil:
		l.failures = append(l.failures, fmt.Sprintf("%s: %v", what, err))
	case resp.StatusCode != http.StatusOK:
		l.failures = append(l.failures, fmt.Sprintf("%s: %d", what, resp.StatusCode))
	case l.signalled && keptAlive && resp.Close:
		l.closing++
	}
}

// TestDrainOnSIGTERM: a SIGTERM to the real server process under steady traffic.
// /readyz turns 503 while the listeners go on serving for SKYGATE_SHUTDOWN_DELAY: no
// connection is refused and no request fails meanwhile, and answers tell clients to
// close their connections. A request whose body is still arriving when the delay ends
// completes. The process then exits 0, its last log line "stopped".
func TestDrainOnSIGTERM(t *testing.T) {
	t.Parallel()
	forEachEngine(t, testDrain)
}

func testDrain(t *testing.T, e engine) {
	const delay = 4 * time.Second
	env := hostileEnv(t, e, map[string]string{
		"SKYGATE_SHUTDOWN_DELAY": delay.String(), "SKYGATE_SHUTDOWN_TIMEOUT": "30s", "SKYGATE_LOG_LEVEL": "info",
	})
	s := startChild(t, env)
	c := s.mustBootstrap("drain", catalogScopes)
	tok := s.mustToken(c, "")
	form := url.Values{"grant_type": {"client_credentials"}}.Encode()

	load := &drainLoad{}
	keepAlive := http.DefaultTransport.(*http.Transport).Clone()
	fresh := http.DefaultTransport.(*http.Transport).Clone()
	fresh.DisableKeepAlives = true
	// Raw clients: validating every answer against the contract would slow the traffic
	// down to a trickle; the probes below are validated.
	clients := []*http.Client{{Transport: keepAlive, Timeout: 30 * time.Second}, {Transport: fresh, Timeout: 30 * time.Second}}
	ctx, stopLoad := context.WithCancel(context.Background())
	defer stopLoad()
	wait := runWorkers(ctx, 4, func(w, i int) {
		keptAlive := w%2 == 0
		var req *http.Request
		if i%2 == 0 {
			req, _ = http.NewRequest(http.MethodGet, s.base+"/v2/catalog/lounges", nil)
			req.Header.Set("Authorization", "Bearer "+tok)
		} else {
			req, _ = http.NewRequest(http.MethodPost, s.base+"/oauth/v2/token", strings.NewReader(form))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Authorization", basic(c))
		}
		var reused bool
		trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused }}
		resp, err := clients[w%2].Do(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
		if err == nil {
			_, err = io.Copy(io.Discard, resp.Body) // a body read to its end frees the connection
			resp.Body.Close()
		}
		load.record(req.Method+" "+req.URL.Path, keptAlive, reused, resp, err)
	})
	for deadline := time.Now().Add(30 * time.Second); ; { // connections kept alive before the signal
		load.mu.Lock()
		n := load.total
		load.mu.Unlock()
		if n >= 20 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d requests answered in 30 s before the signal", n)
		}
		time.Sleep(20 * time.Millisecond)
	}

	signalled := time.Now()
	load.mu.Lock()
	load.signalled = true
	load.mu.Unlock()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// A token request whose body is still on its way when the delay ends.
	slow, err := net.Dial("tcp", strings.TrimPrefix(s.base, "http://"))
	if err != nil {
		t.Fatalf("connection refused during the delay: %v", err)
	}
	defer slow.Close()
	fmt.Fprintf(slow, "POST /oauth/v2/token HTTP/1.1\r\nHost: skygate\r\nAuthorization: %s\r\n"+
		"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n%s", basic(c), len(form), form[:5])

	waitReadyz(t, s, http.StatusServiceUnavailable)
	if resp, body := s.do(s.opsClient, http.MethodGet, s.opsBase+"/readyz", nil, nil); resp.StatusCode != http.StatusServiceUnavailable ||
		!strings.Contains(string(body), "shutting down") || resp.Header.Get("Retry-After") != "" {
		t.Errorf("/readyz while draining: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if resp, body := s.do(s.opsClient, http.MethodGet, s.opsBase+"/healthz", nil, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz while draining: %d %s", resp.StatusCode, body)
	}
	// The traffic goes on for half the delay after the signal: the server, which got
	// the signal after that instant, serves for the whole delay.
	time.Sleep(time.Until(signalled.Add(delay / 2)))
	stopLoad()
	wait()

	// The listeners close once the delay has passed; the slow request goes on.
	for deadline := time.Now().Add(60 * time.Second); ; {
		probe, err := net.DialTimeout("tcp", strings.TrimPrefix(s.base, "http://"), time.Second)
		if err != nil {
			break
		}
		probe.Close()
		if time.Now().After(deadline) {
			t.Fatal("the plain listener still accepts connections a minute after the signal")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := io.WriteString(slow, form[5:]); err != nil {
		t.Fatalf("the slow request's connection was cut when the listeners closed: %v", err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(slow), nil)
	if err != nil {
		t.Fatalf("no answer to the request in flight when the delay ended: %v", err)
	}
	var tr tokenResponse
	if err := json.NewDecoder(resp.Body).Decode(&tr); resp.StatusCode != http.StatusOK || err != nil || tr.AccessToken == "" || !resp.Close {
		t.Errorf("request in flight when the delay ended: %d %v, Connection: close %v", resp.StatusCode, err, resp.Close)
	}
	resp.Body.Close()

	select {
	case <-s.done:
	case <-time.After(60 * time.Second):
		t.Fatalf("the server had not exited a minute after the delay:\n%s", tailOf(s.log, 4000))
	}
	if code := s.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit status %d, want 0:\n%s", code, tailOf(s.log, 4000))
	}
	if since := time.Since(signalled); since < delay {
		t.Errorf("exited %v after the signal, before the delay of %v had passed", since, delay)
	}

	load.mu.Lock()
	defer load.mu.Unlock()
	if len(load.failures) > 0 {
		t.Errorf("%d of %d requests failed (%d after the signal), first: %s", len(load.failures), load.total, load.afterSignal, load.failures[0])
	}
	if load.reused == 0 || load.afterSignal == 0 || load.closing == 0 {
		t.Errorf("%d requests over kept-alive connections, %d after the signal, %d answered with Connection: close; want some of each",
			load.reused, load.afterSignal, load.closing)
	}
	msgs := logMessages(t, s.log)
	if len(msgs) == 0 || msgs[len(msgs)-1] != "stopped" {
		t.Errorf("the last log line is no \"stopped\" line:\n%s", tailOf(s.log, 4000))
	}
	for _, want := range []string{"draining", "shutting down"} {
		if !slices.Contains(msgs, want) {
			t.Errorf("no %q log line", want)
		}
	}
	t.Logf("%d requests (%d over kept-alive connections), %d after the signal; %d answered Connection: close",
		load.total, load.reused, load.afterSignal, load.closing)
}

// TestSecondSignalEndsTheDrain: a second SIGTERM during the drain ends the process at
// once with status 1, without waiting for the delay (here the longest allowed).
func TestSecondSignalEndsTheDrain(t *testing.T) {
	t.Parallel()
	s := startChild(t, testEnv(t, map[string]string{"SKYGATE_SHUTDOWN_DELAY": "10m"}))
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitReadyz(t, s, http.StatusServiceUnavailable)
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.done:
	case <-time.After(60 * time.Second):
		t.Fatal("the server still runs a minute after the second signal")
	}
	if code := s.cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	if log := tailOf(s.log, 4000); !strings.Contains(log, "skygate: second signal") {
		t.Errorf("no word of the second signal in the log:\n%s", log)
	}
}

// waitReadyz waits until the operator listener's /readyz answers status.
func waitReadyz(t *testing.T, s *childServer, status int) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; {
		resp, err := http.Get(s.opsBase + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == status {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz never answered %d: %v\n%s", status, err, tailOf(s.log, 4000))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// logMessages returns the msg of every line of the log file, in order: "" for a line
// that is no JSON object with one.
func logMessages(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var msgs []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var l struct{ Msg string }
		_ = json.Unmarshal(sc.Bytes(), &l)
		msgs = append(msgs, l.Msg)
	}
	return msgs
}
