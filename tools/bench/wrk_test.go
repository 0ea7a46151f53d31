package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

func TestLuaString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
	}{
		{"POST", "[[\nPOST]]"},
		{"a]]b", "[=[\na]]b]=]"},
		{"a]]b]=]c", "[==[\na]]b]=]c]==]"},
		{"\nleading newline", "[[\n\nleading newline]]"},
		{"", "[[\n]]"},
		{"a\r\nb", `"\097\013\010\098"`},
	}
	for _, tt := range tests {
		if got := luaString(tt.in); got != tt.want {
			t.Errorf("luaString(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestWrkScript(t *testing.T) {
	t.Parallel()
	s := wrkScript(vegeta.Target{Method: http.MethodPost, URL: "http://127.0.0.1:1/oauth/v2/token", Body: []byte("a=[[x]]&b=1"),
		Header: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Accept": {"a", "b"}}})
	for _, want := range []string{
		"wrk.method = [[\nPOST]]\n",
		"wrk.body = [=[\na=[[x]]&b=1]=]\n",
		"wrk.headers[ [[\nAccept]] ] = [[\na, b]]\n",
		"wrk.headers[ [[\nContent-Type]] ] = [[\napplication/x-www-form-urlencoded]]\n",
		"function done(summary, latency, requests)",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("script lacks %q:\n%s", want, s)
		}
	}
	// A response() callback makes wrk parse every response in Lua.
	if strings.Contains(s, "response") {
		t.Errorf("script defines response():\n%s", s)
	}
	if s := wrkScript(vegeta.Target{Method: http.MethodGet}); strings.Contains(s, "wrk.body") {
		t.Errorf("GET script sets a body:\n%s", s)
	}
}

func TestParseWrkDone(t *testing.T) {
	t.Parallel()
	out := `Running 1s test @ http://127.0.0.1:40000/
  1 threads and 4 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency    67.01us   20.50us   1.09ms   90.12%
  58316 requests in 1.00s, 123.08MB read
Requests/sec:  58230.33
Transfer/sec:    122.89MB
{"requests":58316,"duration_us":1001476,"bytes":129057308,"errors":{"connect":0,"read":1,"write":0,"status":15,"timeout":2},"latency_us":{"p50":64,"p90":82,"p99":150,"max":1090}}
`
	res, err := parseWrkDone([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 58316 || res.Bytes != 129057308 || res.Errors.Status != 15 || res.LatencyUS.P99 != 150 {
		t.Errorf("parsed %+v", res)
	}
	ph := phase{Statuses: map[string]int{}}
	res.fill(&ph, http.StatusOK)
	if ph.Requests != 58316 || ph.OK != 58316-15-1-2 {
		t.Errorf("requests %d ok %d", ph.Requests, ph.OK)
	}
	if ph.Seconds != 1.001476 || ph.P50 != 0.064 || ph.Max != 1.09 {
		t.Errorf("seconds %v p50 %v max %v", ph.Seconds, ph.P50, ph.Max)
	}
	if ph.Statuses["200"] != int(ph.OK) || ph.Statuses["≥400"] != 15 || len(ph.Errors) != 2 {
		t.Errorf("statuses %v errors %v", ph.Statuses, ph.Errors)
	}
	for _, bad := range []string{"", "Running 1s test\n", `{"requests":1}`, "{nope"} {
		if _, err := parseWrkDone([]byte(bad)); err == nil {
			t.Errorf("parseWrkDone(%q) did not fail", bad)
		}
	}
}

// TestWrkSendsTheTarget runs wrk with a generated script against a server that keeps
// the first request: what arrives must be the target, byte for byte.
func TestWrkSendsTheTarget(t *testing.T) {
	t.Parallel()
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		t.Skip("wrk is not on PATH (apt-get install wrk)")
	}
	var (
		once sync.Once
		got  *http.Request
		body []byte
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		once.Do(func() { got, body = r, b })
		w.WriteHeader(http.StatusTeapot)
	}))
	defer srv.Close()
	target := vegeta.Target{Method: http.MethodPatch, URL: srv.URL + "/p?q=1&r=]]", Body: []byte("\nline]]\r\n]=]\x00end"),
		Header: http.Header{"Content-Type": {"text/plain"}, "X-Quote": {`"a' [[b]] \n`}}}
	script := filepath.Join(t.TempDir(), "s.lua")
	if err := os.WriteFile(script, []byte(wrkScript(target)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(t.Context(), wrk, "-t1", "-c1", "-d1s", "-s", script, target.URL).CombinedOutput()
	if err != nil {
		t.Fatalf("wrk: %v\n%s", err, out)
	}
	res, err := parseWrkDone(out)
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	// 418 is ≥ 400: every response is a status error to wrk.
	if res.Requests == 0 || res.Errors.Status != res.Requests {
		t.Errorf("requests %d, status errors %d", res.Requests, res.Errors.Status)
	}
	if got == nil {
		t.Fatal("no request arrived")
	}
	if got.Method != target.Method || got.URL.RequestURI() != "/p?q=1&r=]]" || !bytes.Equal(body, target.Body) {
		t.Errorf("got %s %s %q", got.Method, got.URL.RequestURI(), body)
	}
	for k := range target.Header {
		if got.Header.Get(k) != target.Header.Get(k) {
			t.Errorf("header %s = %q, want %q", k, got.Header.Get(k), target.Header.Get(k))
		}
	}
}
