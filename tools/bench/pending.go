package main

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// The eSIM and webhook scenarios measure routes that are being built. Each first asks
// the router whether its route exists and is skipped, with the reason, when it does
// not; the rest is written against the contract so that it runs once they land.

const (
	esimOrdersPath = "/v2/b2b/esim/orders"
	webhooksPath   = "/api/v1/b2b/webhooks"
)

// esimOrder orders one eSIM per request with a fresh Idempotency-Key. The benchmark
// account first gets, straight through the store as an admin would, one package, a
// pool of opts.esimPool profiles and a balance that outlasts them.
func (h *harness) esimOrder(ctx context.Context, s *server, label string) (row, error) {
	r := row{Scenario: scESIMOrder, Engine: s.engine}
	if missing, err := s.routeMissing(ctx, http.MethodPost, esimOrdersPath); err != nil || missing {
		r.Skipped = "POST " + esimOrdersPath + " is not routed yet (internal/httpapi/routes.go)"
		return r, err
	}
	pkg, err := seedESIM(ctx, s.databaseURL, s.creds.AccountID, h.opts.esimPool)
	if err != nil {
		return r, fmt.Errorf("seed eSIM data: %w", err)
	}
	body := []byte(fmt.Sprintf(`{"package_id":%q,"quantity":1}`, pkg))
	// Try the plain listener; move to mTLS if the route asks for a client certificate.
	base, cli := s.http, s.plain
	var tc *tls.Config
	for attempt := 0; attempt < 2; attempt++ {
		t := vegeta.Target{Method: http.MethodPost, URL: base + esimOrdersPath, Body: body, Header: http.Header{
			"Authorization": {"Bearer " + s.token}, "Content-Type": {"application/json"},
			"Idempotency-Key": {fmt.Sprintf("bench-probe-%d", time.Now().UnixNano())},
		}}
		resp, rb, err := do(ctx, cli, t)
		if err != nil {
			return r, err
		}
		if resp.StatusCode == http.StatusUnauthorized && strings.Contains(string(rb), "ClientCertificate") && attempt == 0 {
			base, tc, cli = s.mtls, s.mtlsTLS, s.mtlsCli
			continue
		}
		if resp.StatusCode/100 != 2 {
			return r, fmt.Errorf("eSIM order probe: %d %.300s", resp.StatusCode, rb)
		}
		m, err := h.measure(ctx, label, s.proc, s.idempotentLoad(base+esimOrdersPath, body, resp.StatusCode, tc))
		r = httpRow(scESIMOrder, s.engine, m)
		r.Note = joinNote(r.Note, fmt.Sprintf("pool of %d profiles: a run that empties it shows errors (raise -esim-pool)", h.opts.esimPool))
		return r, err
	}
	return r, fmt.Errorf("eSIM order probe: no listener accepted the order")
}

// webhookDeliveries subscribes a local receiver, creates bookings for -duration and
// counts the deliveries that reach the receiver until they stop. Every booking writes
// several events of one object, delivered in commit order: Pending at its creation,
// Issued with its pass Active when the worker issues it, and, because the receiver
// cancels each booking whose Issued event arrives, Canceled with the pass Voided. The
// figure is deliveries per second from the first to the last; CPU per delivery
// includes creating and cancelling the bookings that caused them. The row's
// Deliveries show whether the order held and what it cost: the wait of each booking's
// first event beside that of the later ones, which may wait for their predecessors.
func (h *harness) webhookDeliveries(ctx context.Context, s *server, label string) (row, error) {
	r := row{Scenario: scWebhooks, Engine: s.engine}
	if missing, err := s.routeMissing(ctx, http.MethodPost, webhooksPath); err != nil || missing {
		r.Skipped = "POST " + webhooksPath + " is not routed yet (internal/httpapi/routes.go)"
		return r, err
	}
	cancels := make(chan string, 1<<16)
	var dropped atomic.Int64
	rcv, err := newReceiver(func(bookingID string) {
		select {
		case cancels <- bookingID:
		default:
			dropped.Add(1)
		}
	})
	if err != nil {
		return r, err
	}
	defer rcv.close()
	var (
		cancelled, cancelFailed atomic.Int64
		cancellers              sync.WaitGroup
	)
	// cancels is never closed: a late delivery may still call the receiver's hook.
	stop := make(chan struct{})
	for range 4 {
		cancellers.Go(func() {
			for {
				var id string
				select {
				case <-stop:
					return
				case id = <-cancels:
				}
				resp, _, err := do(ctx, s.mtlsCli, s.bearer(vegeta.Target{Method: http.MethodPost,
					URL: s.mtls + "/v2/b2b/booking/fast-tracks/" + id + "/cancel"}))
				if err == nil && resp.StatusCode == http.StatusOK {
					cancelled.Add(1)
				} else {
					cancelFailed.Add(1)
				}
			}
		})
	}
	defer func() { close(stop); cancellers.Wait() }()
	var secret [24]byte
	_, _ = rand.Read(secret[:])
	sub, _ := json.Marshal(map[string]string{"url": rcv.url, "secret": "whsec_" + base64.StdEncoding.EncodeToString(secret[:])})
	resp, body, err := do(ctx, s.plain, s.bearer(vegeta.Target{Method: http.MethodPost, URL: s.http + webhooksPath, Body: sub,
		Header: http.Header{"Content-Type": {"application/json"}}}))
	if err != nil {
		return r, err
	}
	if resp.StatusCode/100 != 2 {
		return r, fmt.Errorf("subscribe: %d %.300s", resp.StatusCode, body)
	}
	l, err := s.bookingLoad(ctx)
	if err != nil {
		return r, err
	}
	cpu0, err := procCPU(s.pid())
	if err != nil {
		return r, err
	}
	start := time.Now()
	load, err := h.attack(ctx, s.proc, l, 0, h.opts.workers, h.opts.duration, 0)
	if err != nil {
		return r, err
	}
	// Drain: wait until no delivery arrived for 2 s (at most 60 s).
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); {
		if last := rcv.last(); !last.IsZero() && time.Since(last) > 2*time.Second {
			break
		}
		select {
		case <-ctx.Done():
			return r, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	cpu1, err := procCPU(s.pid())
	if err != nil {
		return r, err
	}
	n, first, last := rcv.stats()
	f := rcv.figures()
	f.Cancels = cancelled.Load()
	r.Kind, r.Deliveries = "deliveries", f
	r.Note = fmt.Sprintf("%d bookings created, %d cancelled on Issued, %d deliveries; CPU includes the bookings and cancels; "+
		"in order: %d out of order; wait first event p50 %.1f ms, later events p50 %.1f ms p99 %.1f ms",
		load.OK, f.Cancels, n, f.OutOfOrder, f.FirstP50, f.LaterP50, f.LaterP99)
	if k := cancelFailed.Load() + dropped.Load(); k > 0 {
		r.Note = joinNote(r.Note, fmt.Sprintf("%d cancels failed or were dropped", k))
	}
	if n > 1 && last.After(first) {
		r.RPS = float64(n) / last.Sub(first).Seconds()
		r.CPUPerReq = (cpu1 - cpu0).Seconds() / float64(n) * 1e6
		r.ServerUtil = (cpu1 - cpu0).Seconds() / last.Sub(start).Seconds()
	}
	h.logf("%-16s %8.0f deliveries/s  (%s)", label, r.RPS, r.Note)
	return r, nil
}
