package main

// The fixed-rate generator: the latency phases.
//
// vegeta's open loop goes through net/http's client, which costs about as much per
// request as the bare server: on one core it saturates near 20 000 requests/s, and its
// own queueing became the p99 of the cheap scenarios. This generator writes each
// request's bytes (serialized once when every request is the same) on keep-alive
// connections and reads the answer with a status line and header scan, a few µs a
// request.
//
// It is an open loop with coordinated omission accounted for: request i is due at
// start + i/rate, a pacer hands due requests to idle connections and a request's
// latency runs from when it was due, not from when it was sent. So a server that
// stalls shows the stall in every request that fell due during it, whether the
// request waited in the server or for a connection here. The pacer sleeps with the
// runtime's timer, about 1 ms of granularity when the process is otherwise idle: that
// lateness is in the latencies too, so they err on the slow side by up to a
// millisecond.
//
// Connections: plain HTTP opens another connection, up to openLoopMaxWorkers, when
// none is idle. mTLS keeps a pool of the phase's workers connections, as a partner's
// pooled client does: a connection there costs a handshake, and an open loop that
// opened one for every request due during a stall (vegeta's) turned a 300 ms stall
// into a second of handshakes, a storm of its own making, not the server's latency at
// the load.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// genFixedRate names the generator in phases and reports.
const genFixedRate = "fixed-rate"

// openLoopGenerator is the generator of the open loops (the latency phases):
// fixed-rate, unless -generator vegeta asked for vegeta everywhere.
func (h *harness) openLoopGenerator() string {
	if h.opts.generator == genVegeta {
		return genVegeta
	}
	return genFixedRate
}

// rawRequest serializes t as an HTTP/1.1 request with keep-alive. Its URL must be
// https:// when secure, else http://.
func rawRequest(t vegeta.Target, secure bool) ([]byte, string, error) {
	u, err := url.Parse(t.URL)
	if err != nil {
		return nil, "", err
	}
	scheme := "http"
	if secure {
		scheme = "https"
	}
	if u.Scheme != scheme || u.Host == "" {
		return nil, "", fmt.Errorf("fixed-rate generator: %q is not an %s:// URL", t.URL, scheme)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\n", t.Method, u.RequestURI(), u.Host)
	for _, k := range slices.Sorted(maps.Keys(t.Header)) {
		for _, v := range t.Header[k] {
			fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		}
	}
	if len(t.Body) > 0 || t.Method == "POST" || t.Method == "PUT" || t.Method == "PATCH" {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(t.Body))
	}
	b.WriteString("\r\n")
	b.Write(t.Body)
	return b.Bytes(), u.Host, nil
}

// errUnframed is a response this generator cannot delimit.
var errUnframed = errors.New("response without Content-Length (chunked or close-delimited): use -generator vegeta")

// readResponse reads one response from br and returns its status; the body is
// discarded. close reports that the server will close the connection.
func readResponse(br *bufio.Reader, head bool) (status int, close bool, err error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return 0, false, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return 0, false, fmt.Errorf("bad status line %q", line)
	}
	if status, err = strconv.Atoi(string(line[9:12])); err != nil || status < 100 || status > 599 {
		return 0, false, fmt.Errorf("bad status line %q", line)
	}
	length := -1
	for {
		line, err = br.ReadSlice('\n')
		if err != nil {
			return status, false, err
		}
		if len(line) <= 2 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return status, false, fmt.Errorf("bad header line %q", line)
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if length, err = strconv.Atoi(string(value)); err != nil || length < 0 {
				return status, false, fmt.Errorf("bad Content-Length %q", value)
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			return status, false, errUnframed
		case bytes.EqualFold(name, []byte("Connection")):
			close = bytes.EqualFold(value, []byte("close"))
		}
	}
	noBody := head || status == 204 || status == 304 || status/100 == 1
	switch {
	case noBody:
	case length < 0:
		return status, close, errUnframed
	default:
		if _, err := br.Discard(length); err != nil {
			return status, close, err
		}
	}
	return status, close, nil
}

// fixedRateTally is what one connection saw.
type fixedRateTally struct {
	latencies []time.Duration // of requests with the expected status
	slowAt    []time.Duration // when each of those slower than slowLatency fell due, from the measure's start
	statuses  [600]int64
	errs      map[string]int
	requests  int64
}

// fixedRateSource is what the connections of one phase send, and where.
type fixedRateSource struct {
	addr   string
	tls    *tls.Config // nil for plain HTTP
	head   bool
	static []byte          // every request, when they are all the same
	next   vegeta.Targeter // else each request's target
}

// newFixedRateSource prepares l's requests. A load whose requests differ gives up its
// first target to learn the address.
func newFixedRateSource(l httpLoad) (*fixedRateSource, error) {
	src := &fixedRateSource{}
	if l.tls != nil {
		src.tls = l.tls.Clone()
		src.tls.ClientSessionCache = tls.NewLRUClientSessionCache(0)
	}
	t := vegeta.Target{}
	if l.static != nil {
		t = *l.static
	} else {
		src.next = l.targeter()
		if err := src.next(&t); err != nil {
			return nil, err
		}
	}
	raw, addr, err := rawRequest(t, src.tls != nil)
	if err != nil {
		return nil, err
	}
	src.addr, src.head = addr, t.Method == http.MethodHead
	if l.static != nil {
		src.static = raw
	}
	return src, nil
}

// request returns the bytes of the next request.
func (s *fixedRateSource) request() ([]byte, error) {
	if s.static != nil {
		return s.static, nil
	}
	var t vegeta.Target
	if err := s.next(&t); err != nil {
		return nil, err
	}
	raw, _, err := rawRequest(t, s.tls != nil)
	return raw, err
}

// dial opens a connection, with a TLS handshake for mTLS.
func (s *fixedRateSource) dial() (net.Conn, error) {
	d := &net.Dialer{Timeout: 10 * time.Second}
	if s.tls != nil {
		return tls.DialWithDialer(d, "tcp", s.addr, s.tls)
	}
	return d.Dial("tcp", s.addr)
}

// fixedRateConn sends the requests handed to it on one connection, redialing after an
// error or a Connection: close.
type fixedRateConn struct {
	src     *fixedRateSource
	want    int
	measure time.Time // requests due before this are not counted
	// deadline bounds every read and write: the phase's end plus the request timeout.
	// One deadline per connection, not per request: setting one costs timer work.
	deadline time.Time
	conn     net.Conn
	br       *bufio.Reader
	tally    fixedRateTally
}

func (c *fixedRateConn) run(due <-chan time.Time, idle chan<- struct{}) {
	defer func() {
		if c.conn != nil {
			_ = c.conn.Close() // done with it either way
		}
	}()
	for at := range due {
		status, err := c.do()
		took := time.Since(at)
		idle <- struct{}{}
		if at.Before(c.measure) {
			continue
		}
		c.tally.requests++
		if err != nil {
			c.tally.errs[err.Error()]++
			continue
		}
		c.tally.statuses[status]++
		if status == c.want {
			c.tally.latencies = append(c.tally.latencies, took)
			if took > slowLatency {
				c.tally.slowAt = append(c.tally.slowAt, at.Sub(c.measure))
			}
		}
	}
}

func (c *fixedRateConn) do() (int, error) {
	raw, err := c.src.request()
	if err != nil {
		return 0, err
	}
	if c.conn == nil {
		conn, err := c.src.dial()
		if err != nil {
			return 0, err
		}
		_ = conn.SetDeadline(c.deadline)
		c.conn, c.br = conn, bufio.NewReaderSize(conn, 32<<10)
	}
	status, closing, err := c.roundTrip(raw)
	if err != nil || closing {
		_ = c.conn.Close() // broken or closing: a new one follows
		c.conn = nil
	}
	return status, err
}

// roundTrip writes the request and reads its response.
func (c *fixedRateConn) roundTrip(raw []byte) (int, bool, error) {
	if _, err := c.conn.Write(raw); err != nil {
		return 0, true, err
	}
	return readResponse(c.br, c.src.head)
}

// attackFixedRate runs the open loop described at the top of this file: rate
// requests per second of l for skip+d, measuring the last d.
func (h *harness) attackFixedRate(ctx context.Context, p *proc, l httpLoad, rate, workers int, d, skip time.Duration) (phase, error) {
	ph := phase{Generator: genFixedRate, Rate: rate, Workers: workers, Statuses: map[string]int{}}
	src, err := newFixedRateSource(l)
	if err != nil {
		return ph, err
	}
	maxConns := openLoopMaxWorkers
	if src.tls != nil {
		maxConns = workers
	}
	total := int64((d + skip).Seconds() * float64(rate))
	interval := float64(time.Second) / float64(rate)

	due := make(chan time.Time)
	idle := make(chan struct{}, openLoopMaxWorkers)
	var wg sync.WaitGroup
	var conns []*fixedRateConn
	start := time.Now()
	measureFrom := start.Add(skip)
	spawn := func() {
		c := &fixedRateConn{src: src, want: l.want, measure: measureFrom,
			deadline: measureFrom.Add(d + wrkTimeout), tally: fixedRateTally{errs: map[string]int{}}}
		conns = append(conns, c)
		wg.Go(func() { c.run(due, idle) })
		idle <- struct{}{}
	}
	for range workers {
		spawn()
	}

	var cpu0, self0 time.Duration
	measuring := false
	for i := int64(0); i < total && ctx.Err() == nil; i++ {
		at := start.Add(time.Duration(float64(i) * interval))
		if wait := time.Until(at); wait > 0 {
			time.Sleep(wait)
		}
		if !measuring && !at.Before(measureFrom) {
			if cpu0, err = procCPU(p.pid()); err != nil {
				break
			}
			self0, measuring = selfCPU(), true
		}
		// Take an idle connection, or open one more when none is and the pool may
		// grow: a slow server must not slow the pacer more than the pool's bound.
		select {
		case <-idle:
		default:
			if len(conns) < maxConns {
				spawn()
			}
			<-idle
		}
		due <- at
	}
	close(due)
	wg.Wait()
	if err != nil {
		return ph, err
	}
	if !measuring {
		return ph, ctx.Err()
	}
	wall := time.Since(measureFrom)
	cpu1, err := phaseEndCPU(ctx, p)
	if err != nil {
		return ph, err
	}

	var latencies, slowAt []time.Duration
	errs := map[string]int{}
	for _, c := range conns {
		ph.Requests += c.tally.requests
		for code, n := range c.tally.statuses {
			if n > 0 {
				ph.Statuses[strconv.Itoa(code)] += int(n)
			}
		}
		for k, v := range c.tally.errs {
			errs[k] += v
		}
		latencies = append(latencies, c.tally.latencies...)
		slowAt = append(slowAt, c.tally.slowAt...)
	}
	ph.Slow = slowSpread(slowAt)
	ph.Workers = len(conns)
	ph.finish(wall, cpu1-cpu0, selfCPU()-self0, latencies, errs)
	return ph, nil
}
