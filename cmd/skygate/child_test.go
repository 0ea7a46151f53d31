package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// envChildServe makes this test binary run `skygate serve` instead of the tests: the
// reliability tests start the server as a process of its own, so that they can kill it
// with SIGKILL at any instant, as a crash or an OOM kill would.
const envChildServe = "SKYGATE_TEST_CHILD_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(envChildServe) == "1" {
		os.Args = []string{"skygate", "serve"}
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// childServer is `skygate serve` in a child process on fixed loopback ports, so that
// it comes back on the same addresses after a restart. Its stderr of every run is
// appended to one log file.
type childServer struct {
	*testServer
	log  string
	cmd  *exec.Cmd
	done chan struct{}
	runs int
}

// freeAddr returns a loopback address with a port that was free a moment ago.
func freeAddr(tb testing.TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startChild starts the server in a child process with env (ports are chosen here) and
// waits until it is ready. The test's cleanup kills it.
func startChild(t *testing.T, env map[string]string) *childServer {
	t.Helper()
	env["SKYGATE_HTTP_ADDR"], env["SKYGATE_MTLS_ADDR"], env["SKYGATE_OPS_ADDR"] = freeAddr(t), freeAddr(t), freeAddr(t)
	c := &childServer{
		testServer: &testServer{t: t, env: env, stderr: &syncBuffer{}, stdout: &syncBuffer{},
			base: "http://" + env["SKYGATE_HTTP_ADDR"], mtlsBase: "https://" + env["SKYGATE_MTLS_ADDR"], opsBase: "http://" + env["SKYGATE_OPS_ADDR"]},
		log: filepath.Join(t.TempDir(), "serve.log"),
	}
	c.stop = func() {}
	t.Cleanup(c.kill)
	c.start()
	c.client = &http.Client{Transport: newValidatingTransport(t, http.DefaultTransport.(*http.Transport).Clone(), c.base, c.mtlsBase)}
	c.mtlsClient = &http.Client{Transport: newValidatingTransport(t, c.tlsTransport(true), c.base, c.mtlsBase)}
	c.noCertClient = &http.Client{Transport: newValidatingTransport(t, c.tlsTransport(false), c.base, c.mtlsBase)}
	c.opsClient = &http.Client{Transport: newOpsValidatingTransport(t, http.DefaultTransport.(*http.Transport).Clone(), c.opsBase)}
	return c
}

// start runs the server and waits for /readyz.
func (c *childServer) start() {
	c.t.Helper()
	f, err := os.OpenFile(c.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		c.t.Fatal(err)
	}
	defer f.Close()
	c.runs++
	fmt.Fprintf(f, "{\"msg\":\"test: start %d\"}\n", c.runs)
	exe, err := os.Executable()
	if err != nil {
		c.t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), envChildServe+"=1", "SKYGATE_SHUTDOWN_DELAY="+noShutdownDelay)
	for k, v := range c.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	c.cmd, c.done = cmd, make(chan struct{})
	go func(done chan struct{}) { _ = cmd.Wait(); close(done) }(c.done)
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(c.base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-c.done:
			c.t.Fatalf("the server exited on start %d:\n%s", c.runs, tailOf(c.log, 4000))
		default:
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("the server never became ready on start %d:\n%s", c.runs, tailOf(c.log, 4000))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// kill sends SIGKILL and waits for the process to be gone.
func (c *childServer) kill() {
	if c.cmd == nil || c.cmd.Process == nil {
		return
	}
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	<-c.done
	c.cmd = nil
}

// logProblems returns the log lines of panics and failed requests.
func (c *childServer) logProblems() []string {
	f, err := os.Open(c.log)
	if err != nil {
		return []string{err.Error()}
	}
	defer f.Close()
	var bad []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if strings.Contains(l, "panic") || strings.Contains(l, `"status":500`) || strings.Contains(l, "DATA RACE") {
			bad = append(bad, l)
		}
	}
	return bad
}

// tailOf returns the last n bytes of a file.
func tailOf(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
