package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/postgres/pgtest"
)

// PostgreSQL outage: the database goes away under load (every connection dropped, new
// ones refused) and comes back. While it is away, requests that need it get 503 with
// Retry-After, never a 500, and /readyz says so; when it is back the service recovers
// by itself, with no acknowledged write lost and none duplicated.
//
// By default the outage is a TCP proxy between the service and PostgreSQL that cuts
// every connection and refuses new ones, which is what a restart looks like from the
// service's side, without disturbing the other tests that share the server. With
// SKYGATE_TEST_PG_RESTART set to a command (such as `pg_ctlcluster
// --skip-systemctl-redirect 15 main restart`), the test runs that command instead: a
// real restart, for a machine where nothing else uses the server at that moment.

// pgProxy forwards TCP connections to PostgreSQL and can cut them all.
type pgProxy struct {
	target string
	addr   string
	mu     sync.Mutex
	ln     net.Listener
	conns  map[net.Conn]struct{}
}

func newPGProxy(t *testing.T, target string) *pgProxy {
	t.Helper()
	p := &pgProxy{target: target, addr: freeAddr(t), conns: map[net.Conn]struct{}{}}
	p.up(t)
	t.Cleanup(p.down)
	return p
}

// up starts accepting on the proxy's address.
func (p *pgProxy) up(t *testing.T) {
	t.Helper()
	var ln net.Listener
	var err error
	for range 50 { // the port may linger briefly after down
		if ln, err = net.Listen("tcp", p.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.pipe(c)
		}
	}()
}

func (p *pgProxy) pipe(c net.Conn) {
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.ln == nil { // cut meanwhile
		p.mu.Unlock()
		c.Close()
		up.Close()
		return
	}
	p.conns[c], p.conns[up] = struct{}{}, struct{}{}
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, c); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); done <- struct{}{} }()
	<-done
	c.Close()
	up.Close()
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, up)
	p.mu.Unlock()
}

// down closes the listener and every connection: the database is gone.
func (p *pgProxy) down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
	}
}

// throughProxy returns dsn with its host and port replaced by addr.
func throughProxy(t *testing.T, dsn, addr string) (string, string) {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil || u.Host == "" {
		t.Skipf("the PostgreSQL DSN is not a URL with a host; cannot put a proxy in front of it")
	}
	target := u.Host
	if u.Port() == "" {
		target = net.JoinHostPort(u.Hostname(), "5432")
	}
	u.Host = addr
	return u.String(), target
}

func TestPostgresOutage(t *testing.T) {
	t.Parallel()
	dsn := pgtest.MustDSN(t)
	restart := os.Getenv("SKYGATE_TEST_PG_RESTART")
	var proxy *pgProxy
	if restart == "" {
		_, target := throughProxy(t, dsn, "")
		proxy = newPGProxy(t, target)
		dsn, _ = throughProxy(t, dsn, proxy.addr)
	}
	env := hostileEnv(t, engines[0], map[string]string{"SKYGATE_DATABASE_URL": dsn})
	s := startServer(t, env)
	c := s.mustBootstrap("outage", skygate.B2BScopes, "--sandbox")
	tok := s.mustToken(c, "")
	// idle has not asked this replica for a token, so its application is not in the
	// replica's application cache: its token request needs the database.
	idle := s.mustBootstrap("outage-idle", catalogScopes)
	ft := s.firstFastTrack(tok)
	plain, mtls := s.rawClients()

	load := newCrashLoad()
	ctx, stop := context.WithCancel(context.Background())
	wait := runWorkers(ctx, 3, func(w, i int) {
		key := fmt.Sprintf("outage-%d-%d", w, i)
		load.record(load.bookings, key, load.untilAcked(t, mtls, http.MethodPost, s.mtlsBase+bookingPath, tok, key, bookingBody(ft, key), http.StatusAccepted))
		time.Sleep(5 * time.Millisecond)
	})
	time.Sleep(500 * time.Millisecond)
	before := load.count(load.bookings)

	// The outage.
	if restart == "" {
		proxy.down()
	} else {
		go func() {
			args := strings.Fields(restart)
			if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
				t.Errorf("%s: %v\n%s", restart, err, out)
			}
		}()
	}
	sawUnavailable := false
	deadline := time.Now().Add(20 * time.Second)
	for !sawUnavailable && time.Now().Before(deadline) {
		resp, err := plain.Get(s.base + "/readyz")
		if err == nil {
			resp.Body.Close()
			sawUnavailable = resp.StatusCode == http.StatusServiceUnavailable
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !sawUnavailable && restart == "" {
		t.Error("/readyz never said the database was unavailable")
	}
	if restart == "" {
		// A request that needs the database, while it is away: 503 with Retry-After, as
		// the contract describes it (the validating client checks), on an API route
		// and at the token endpoint (which answers in OAuth's error format) for a client
		// whose application the replica has not cached.
		resp, body := s.do(s.client, http.MethodGet, s.base+"/v2/b2b/esim/billing", nil, map[string]string{"Authorization": "Bearer " + tok})
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), `"Unavailable"`) {
			t.Errorf("during the outage: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
		resp, body = s.do(s.client, http.MethodPost, s.base+"/oauth/v2/token", strings.NewReader("grant_type=client_credentials"),
			map[string]string{"Authorization": basic(idle), "Content-Type": "application/x-www-form-urlencoded"})
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), `"temporarily_unavailable"`) {
			t.Errorf("token during the outage: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
		time.Sleep(2 * time.Second)
		proxy.up(t)
	}

	// Recovery without anyone's help.
	deadline = time.Now().Add(60 * time.Second)
	for {
		resp, err := plain.Get(s.base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("/readyz never recovered")
		}
		time.Sleep(50 * time.Millisecond)
	}
	after := load.count(load.bookings)
	for load.count(load.bookings) < after+10 {
		if time.Now().After(deadline) {
			t.Fatalf("no bookings acknowledged after the recovery (%d before the outage, %d at recovery)", before, after)
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	wait()

	// Nothing lost, nothing twice; and no 500 at any point.
	checkOnePerKey(t, "booking", load.bookings, s.listAll(t, mtls, s.mtlsBase+bookingPath, tok))
	if load.statuses[http.StatusInternalServerError] != 0 {
		t.Errorf("answers during the outage: %v (500s must not happen)", load.statuses)
	}
	// 503s are the point here; a panic or a 500 is not.
	for _, l := range strings.Split(s.stderr.String(), "\n") {
		if strings.Contains(l, "panic") || strings.Contains(l, `"status":500`) {
			t.Errorf("server log: %.500s", l)
		}
	}
	t.Logf("outage (%s): %d bookings acknowledged, answers other than 202: %v, %d requests repeated",
		map[bool]string{true: "proxy cut", false: restart}[restart == ""], len(load.bookings), load.statuses, load.retries)
}
