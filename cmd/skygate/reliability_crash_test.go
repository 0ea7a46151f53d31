package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// Crash consistency: `serve` is killed with SIGKILL at random moments while clients
// create bookings and eSIM orders, each retrying its request with the same
// Idempotency-Key until it is acknowledged (as the contract tells partners to). After
// the last restart:
//
//   - every acknowledged write exists, with the id of its acknowledgement (0 lost);
//   - each key made exactly one booking or order, and the pool and the balance agree
//     with the orders (0 duplicates, no profile twice, no money lost or made);
//   - every booking is issued exactly once, and every event in the outbox (those of
//     the creations, the issues and the orders) reaches the webhook receiver, signed.

// crashLoad is the outcome of the load: the id acknowledged for each key.
type crashLoad struct {
	mu       sync.Mutex
	bookings map[string]string // key (also the partner_reference) → booking id
	orders   map[string]string // key → order id
	retries  int               // requests sent again after an error or a 5xx
	statuses map[int]int       // answers other than the acknowledgement, by status
	soldOut  bool              // an order found the money or the pool used up
}

func TestCrashConsistency(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		// SKYGATE_TEST_CRASH_KILLS makes a longer run (docs/reliability.md).
		kills := 4
		if n, err := strconv.Atoi(os.Getenv("SKYGATE_TEST_CRASH_KILLS")); err == nil && n > 0 {
			kills = n
		}
		// No rate limits: the load is the point. A short attempt timeout and lease make
		// the deliveries a killed server had claimed due again soon after the restart.
		env := hostileEnv(t, e, map[string]string{"SKYGATE_WEBHOOK_TIMEOUT": "2s", "SKYGATE_WEBHOOK_LEASE": "4s"})
		s := startChild(t, env)
		const secret = "crash-test-webhook-secret-01"
		hooks := newHookLog(t, secret)
		c := s.mustBootstrap("crashy", skygate.B2BScopes, "--sandbox")
		tok := s.mustToken(c, "")
		if resp, body := s.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks", tok, `{"url":"`+hooks.srv.URL+`/hook","secret":"`+secret+`"}`, nil); resp.StatusCode != http.StatusCreated {
			t.Fatalf("webhook: %d %s", resp.StatusCode, body)
		}
		const poolSize, price = 2000, 100 // seedESIMCatalog: price 100, funds for every profile
		pkg := s.seedESIMCatalog(c.AccountID, poolSize)
		ft := s.firstFastTrack(tok)
		plain, mtls := s.rawClients()

		load := newCrashLoad()
		ctx, stop := context.WithCancel(context.Background())
		wait := runWorkers(ctx, 4, func(w, i int) {
			key := fmt.Sprintf("crash-%d-%d", w, i)
			if i%3 == 2 && !load.isSoldOut() {
				body := `{"package_id":"` + pkg + `","quantity":1,"partner_reference":"` + key + `"}`
				load.record(load.orders, key, load.untilAcked(t, plain, http.MethodPost, s.base+"/v2/b2b/esim/orders", tok, key, body, http.StatusCreated))
			} else {
				load.record(load.bookings, key, load.untilAcked(t, mtls, http.MethodPost, s.mtlsBase+bookingPath, tok, key, bookingBody(ft, key), http.StatusAccepted))
			}
			// A steady load rather than a flood: the run is about crashes, and every
			// write's events must be delivered before it ends.
			time.Sleep(15 * time.Millisecond)
		})
		for k := range kills {
			time.Sleep(time.Duration(300+rand.IntN(900)) * time.Millisecond)
			s.kill()
			t.Logf("kill %d: %d bookings and %d orders acknowledged so far", k+1, load.count(load.bookings), load.count(load.orders))
			s.start()
		}
		time.Sleep(500 * time.Millisecond)
		stop()
		wait()
		if t.Failed() {
			t.FailNow()
		}

		// 0 lost, 0 duplicates: one booking and one order per key, with the
		// acknowledged id.
		checkOnePerKey(t, "booking", load.bookings, s.listAll(t, mtls, s.mtlsBase+bookingPath, tok))
		checkOnePerKey(t, "order", load.orders, s.listAll(t, plain, s.base+"/v2/b2b/esim/orders", tok))
		// The pool and the money agree with the orders. Money and profiles run out
		// together (one profile at the price per order), so an order refused for
		// either must find every profile sold.
		orders := len(load.orders)
		if load.soldOut && orders != poolSize {
			t.Errorf("orders refused as sold out after %d of %d profiles", orders, poolSize)
		}
		_, poolBody := s.adminCall(http.MethodGet, "/accounts/"+c.AccountID+"/esim/pool", "")
		var pool skygate.PoolCounts
		if err := json.Unmarshal(poolBody, &pool); err != nil || pool.ByStatus[skygate.PoolAssigned] != orders || pool.Total != poolSize {
			t.Errorf("pool after %d orders: %s", orders, poolBody)
		}
		_, billing := s.partnerCall(http.MethodGet, "/v2/b2b/esim/billing?limit=1", tok, "", nil)
		if want := fmt.Sprintf(`"balances":[{"amount":%d,"currency":"USD","reserved":0}]`, price*(poolSize-orders)); !strings.Contains(string(billing), want) {
			t.Errorf("billing after %d orders: %.300s, want %s", orders, billing, want)
		}

		// Every booking is issued; every event is delivered.
		deadline := time.Now().Add(60 * time.Second)
		s.waitIssued(t, tok, deadline)
		events := waitDelivered(t, s.openStore(), c.AccountID, hooks, deadline)
		perBooking := map[string]map[string]int{}
		perOrder := map[string]int{}
		for _, ev := range events {
			var d struct {
				BookingID string `json:"booking_id"`
				OrderID   string `json:"order_id"`
				Status    string `json:"status"`
			}
			_ = json.Unmarshal(ev.Data, &d)
			switch ev.Type {
			case skygate.EventBookingStatusChanged:
				if perBooking[d.BookingID] == nil {
					perBooking[d.BookingID] = map[string]int{}
				}
				perBooking[d.BookingID][d.Status]++
			case skygate.EventESIMOrderCompleted:
				perOrder[d.OrderID]++
			}
		}
		for _, id := range load.bookings {
			if got := perBooking[id]; got["Pending"] != 1 || got["Issued"] != 1 {
				t.Errorf("booking %s: events %v, want one Pending and one Issued", id, got)
			}
		}
		for _, id := range load.orders {
			if perOrder[id] != 1 {
				t.Errorf("order %s: %d esim.order.completed events", id, perOrder[id])
			}
		}
		distinct, repeats, bad := hooks.counts()
		if bad != 0 || distinct != len(events) {
			t.Errorf("receiver: %d distinct webhook-ids for %d events, %d failed verification", distinct, len(events), bad)
		}
		for _, l := range s.logProblems() {
			t.Errorf("server log: %.400s", l)
		}
		t.Logf("%s: %d kills, %d bookings, %d orders acknowledged (%d requests repeated after an error); %d events delivered, %d deliveries repeated",
			e.name, kills, len(load.bookings), len(load.orders), load.retries, distinct, repeats)
	})
}

// untilAcked sends the request, and again with the same key after a connection error,
// a 5xx or a 409 IdempotencyInProgress, until it is acknowledged with want; it returns
// the id of the acknowledged resource.
func (l *crashLoad) untilAcked(t *testing.T, c *http.Client, method, url, tok, key, body string, want int) string {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		req, _ := http.NewRequest(method, url, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", key)
		resp, err := c.Do(req)
		if err == nil {
			var v struct {
				ID   string `json:"id"`
				Code string `json:"code"`
			}
			derr := json.NewDecoder(resp.Body).Decode(&v)
			resp.Body.Close()
			if resp.StatusCode != want {
				l.mu.Lock()
				l.statuses[resp.StatusCode]++
				l.mu.Unlock()
			}
			if resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") == "" {
				t.Errorf("%s %s: 503 without Retry-After", method, url)
			}
			switch {
			case resp.StatusCode == want && derr == nil && v.ID != "":
				return v.ID
			case resp.StatusCode >= 500 || (resp.StatusCode == http.StatusConflict && v.Code == "IdempotencyInProgress") || resp.StatusCode == want:
				// A server going down mid-answer, or the same key still in flight.
			case v.Code == "InsufficientFunds" || v.Code == "PoolExhausted" || v.Code == "SlotFull":
				// A long run used up the pool, or the slot is full: a final refusal
				// (checked at the end).
				l.mu.Lock()
				l.soldOut = true
				l.mu.Unlock()
				return ""
			default:
				t.Errorf("%s %s (key %s): %d %s", method, url, key, resp.StatusCode, v.Code)
				return ""
			}
		}
		if time.Now().After(deadline) {
			t.Errorf("key %s never acknowledged (last error %v)", key, err)
			return ""
		}
		l.mu.Lock()
		l.retries++
		l.mu.Unlock()
		time.Sleep(25 * time.Millisecond)
	}
}

func (l *crashLoad) isSoldOut() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.soldOut
}

func newCrashLoad() *crashLoad {
	return &crashLoad{bookings: map[string]string{}, orders: map[string]string{}, statuses: map[int]int{}}
}

func (l *crashLoad) record(m map[string]string, key, id string) {
	if id == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	m[key] = id
}

func (l *crashLoad) count(m map[string]string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(m)
}

// refItem is an element of a list: its id and partner_reference.
type refItem struct {
	ID  string `json:"id"`
	Ref string `json:"partner_reference"`
}

// listAll reads every page of a list route.
func (s *testServer) listAll(t *testing.T, c *http.Client, url, tok string) []refItem {
	t.Helper()
	var out []refItem
	for offset := 0; ; offset += 500 {
		req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("%s?limit=500&offset=%d", url, offset), nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var page struct {
			Data       []refItem `json:"data"`
			Pagination struct{ Total int }
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("list %s: %d %v", url, resp.StatusCode, err)
		}
		out = append(out, page.Data...)
		if len(page.Data) == 0 || offset+len(page.Data) >= page.Pagination.Total {
			return out
		}
	}
}
