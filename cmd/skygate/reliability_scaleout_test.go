package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/postgres/pgtest"
)

// Scale-out: three `serve` replicas on one PostgreSQL database, no proxy in front; the
// test spreads its requests over them round-robin. Tokens from one replica verify on
// the others, an Idempotency-Key holds across replicas, three booking workers issue
// every booking exactly once, and three webhook dispatchers deliver every event, each
// with its own webhook-id. eSIM usage reported through every replica at once sends
// each usage threshold once, and the replicas' lifecycle workers send each expiry
// warning once.

// hookLog is a webhook receiver that verifies signatures, validates every body against
// its event type's schema and counts deliveries by webhook-id (the event id).
type hookLog struct {
	srv    *httptest.Server
	mu     sync.Mutex
	byID   map[string]int
	types  map[string]string
	bad    int
	total  int
	status func() int // the answer, 204 unless set
}

func newHookLog(t *testing.T, secret string) *hookLog {
	t.Helper()
	wh, err := standardwebhooks.NewWebhookRaw([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	h := &hookLog{byID: map[string]int{}, types: map[string]string{}}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		validateDelivery(t, body)
		var ev struct{ ID, Type string }
		_ = json.Unmarshal(body, &ev)
		h.mu.Lock()
		h.total++
		if wh.Verify(body, r.Header) != nil || ev.ID != r.Header.Get("webhook-id") {
			h.bad++
		} else {
			h.byID[ev.ID]++
			h.types[ev.ID] = ev.Type
		}
		status := http.StatusNoContent
		if h.status != nil {
			status = h.status()
		}
		h.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

// counts returns the distinct ids received, the requests with a repeated id, and the
// requests that failed verification.
func (h *hookLog) counts() (distinct, repeats, bad int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, n := range h.byID {
		repeats += n - 1
	}
	return len(h.byID), repeats, h.bad
}

func (h *hookLog) has(id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.byID[id] > 0
}

func TestScaleOutThreeReplicas(t *testing.T) {
	t.Parallel()
	env := testEnv(t, map[string]string{"SKYGATE_DATABASE_URL": pgtest.MustDSN(t)})
	// One data directory: the replicas share the development PKI (one client CA), as
	// real replicas share their certificates.
	var replicas []*testServer
	for range 3 {
		replicas = append(replicas, startServer(t, env))
	}
	r0 := replicas[0]
	pick := func(i int) *testServer { return replicas[i%len(replicas)] }

	const secret = "scale-out-webhook-secret-0001"
	hooks := newHookLog(t, secret)
	c := r0.mustBootstrap("scale", skygate.B2BScopes, "--sandbox")

	// A token from each replica works on every replica.
	var tok string
	for i, from := range replicas {
		tk := from.mustToken(c, "")
		for j, on := range replicas {
			if resp, body := on.get("/v2/catalog/lounges?limit=1", tk, nil); resp.StatusCode != 200 {
				t.Fatalf("token of replica %d on replica %d: %d %s", i, j, resp.StatusCode, body)
			}
		}
		tok = tk
	}
	for j, on := range replicas[1:] {
		_, a := r0.get("/.well-known/jwks.json", "", nil)
		if _, b := on.get("/.well-known/jwks.json", "", nil); string(a) != string(b) {
			t.Errorf("replica %d publishes another JWKS", j+1)
		}
	}

	resp, body := pick(1).partnerCall(http.MethodPost, "/api/v1/b2b/webhooks", tok, `{"url":"`+hooks.srv.URL+`/hook","secret":"`+secret+`"}`, nil)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("webhook: %d %s", resp.StatusCode, body)
	}
	// SKYGATE_TEST_SCALE_BOOKINGS makes a longer run (docs/reliability.md); the orders
	// are a third of the bookings.
	nBookings := 45
	if n, err := strconv.Atoi(os.Getenv("SKYGATE_TEST_SCALE_BOOKINGS")); err == nil && n > 0 {
		nBookings = n
	}
	nOrders := max(nBookings/3, 20)
	pkg := r0.seedESIMCatalog(c.AccountID, nOrders+20)
	ft := r0.firstFastTrack(tok)

	// One Idempotency-Key, 30 concurrent creates over three replicas: one booking; and
	// the same for an eSIM order (one order, one profile, one charge).
	concurrentOnce := func(name string, send func(s *testServer) (*http.Response, []byte), created int) string {
		var (
			wg  sync.WaitGroup
			mu  sync.Mutex
			ids = map[string]int{}
		)
		for i := range 30 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, body := send(pick(i))
				var v struct {
					ID   string `json:"id"`
					Code string `json:"code"`
				}
				_ = json.Unmarshal(body, &v)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case resp.StatusCode == created && v.ID != "":
					ids[v.ID]++
				case resp.StatusCode == http.StatusConflict && v.Code == "IdempotencyInProgress":
				default:
					t.Errorf("%s: %d %s", name, resp.StatusCode, body)
				}
			}()
		}
		wg.Wait()
		if len(ids) != 1 {
			t.Fatalf("%s: 30 requests with one key made %d resources: %v", name, len(ids), ids)
		}
		for id := range ids {
			return id
		}
		return ""
	}
	bookingBodyOnce := bookingBody(ft, "SCALE-ONCE")
	concurrentOnce("booking", func(s *testServer) (*http.Response, []byte) {
		return s.book(s.mtlsClient, tok, "scale-once", bookingBodyOnce)
	}, http.StatusAccepted)
	concurrentOnce("eSIM order", func(s *testServer) (*http.Response, []byte) {
		return s.partnerCall(http.MethodPost, "/v2/b2b/esim/orders", tok, `{"package_id":"`+pkg+`","quantity":1,"partner_reference":"SCALE-ONCE"}`,
			map[string]string{"Idempotency-Key": "scale-order-once"})
	}, http.StatusCreated)
	if _, body := pick(2).partnerCall(http.MethodGet, "/v2/b2b/esim/orders", tok, "", nil); !strings.Contains(string(body), `"total":1`) {
		t.Errorf("orders after the concurrent creates: %.300s", body)
	}

	// Many bookings and orders with their own keys, round-robin, a few at a time.
	var (
		wg         sync.WaitGroup
		mu         sync.Mutex
		bookingIDs = []string{}
		sem        = make(chan struct{}, 6)
	)
	for i := range nBookings + nOrders {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			s := pick(i)
			if i < nBookings {
				resp, body := s.book(s.mtlsClient, tok, fmt.Sprintf("scale-%d", i), bookingBody(ft, fmt.Sprintf("SCALE-%d", i)))
				if resp.StatusCode != http.StatusAccepted {
					t.Errorf("booking %d: %d %s", i, resp.StatusCode, body)
					return
				}
				mu.Lock()
				bookingIDs = append(bookingIDs, mustBooking(t, body).ID)
				mu.Unlock()
				return
			}
			resp, body := s.partnerCall(http.MethodPost, "/v2/b2b/esim/orders", tok, `{"package_id":"`+pkg+`","quantity":1}`,
				map[string]string{"Idempotency-Key": fmt.Sprintf("scale-order-%d", i)})
			if resp.StatusCode != http.StatusCreated {
				t.Errorf("order %d: %d %s", i, resp.StatusCode, body)
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	// eSIMs reported used by every replica at once and warned by every replica's worker.
	lifeICCIDs := esimLifeAcrossReplicas(t, replicas, tok, c.AccountID, 6)

	// Every booking is issued (by whichever worker), then every event is delivered.
	deadline := time.Now().Add(45 * time.Second)
	pick(0).waitIssued(t, tok, deadline)
	events := waitDelivered(t, r0.openStore(), c.AccountID, hooks, deadline)

	// Exactly one Issued per booking: in its history and in the outbox.
	issued := map[string]int{}
	active := map[string]int{}
	orders := 0
	for _, e := range events {
		var d struct {
			BookingID string `json:"booking_id"`
			Status    string `json:"status"`
		}
		_ = json.Unmarshal(e.Data, &d)
		switch {
		case e.Type == skygate.EventBookingStatusChanged && d.Status == "Issued":
			issued[d.BookingID]++
		case e.Type == skygate.EventPassStatusChanged && d.Status == "Active":
			active[d.BookingID]++
		case e.Type == "esim.order.completed":
			orders++
		}
	}
	type listed struct {
		ID      string                    `json:"id"`
		History []struct{ Status string } `json:"status_history"`
	}
	var bookings []listed
	for offset := 0; ; offset += 500 {
		_, list := pick(offset/500).bookingCall(http.MethodGet, fmt.Sprintf("%s?limit=500&offset=%d", bookingPath, offset), tok)
		var page struct {
			Data []listed `json:"data"`
		}
		if err := json.Unmarshal(list, &page); err != nil {
			t.Fatal(err)
		}
		bookings = append(bookings, page.Data...)
		if len(page.Data) < 500 {
			break
		}
	}
	if len(bookings) != nBookings+1 {
		t.Errorf("%d bookings listed, want %d", len(bookings), nBookings+1)
	}
	for _, b := range bookings {
		n := 0
		for _, h := range b.History {
			if h.Status == "Issued" {
				n++
			}
		}
		if n != 1 || issued[b.ID] != 1 || active[b.ID] != 1 {
			t.Errorf("booking %s: Issued %d times in its history, %d booking events, %d pass events", b.ID, n, issued[b.ID], active[b.ID])
		}
	}
	// The orders, the one with the shared key, and the day passes' (esimLifeAcrossReplicas).
	if orders != nOrders+2 {
		t.Errorf("%d esim.order.completed events, want %d", orders, nOrders+2)
	}
	checkESIMLifeEvents(t, events, lifeICCIDs)
	distinct, repeats, bad := hooks.counts()
	if distinct != len(events) || bad != 0 {
		t.Errorf("receiver: %d distinct webhook-ids for %d events, %d failed verification", distinct, len(events), bad)
	}
	t.Logf("3 replicas: %d bookings, %d orders, %d events, %d delivered (distinct webhook-ids), %d repeated deliveries",
		len(bookings), orders, len(events), distinct, repeats)
	for _, s := range replicas {
		s.checkServerLog(t)
	}
}

// esimLifeAcrossReplicas orders n eSIMs of a new 1-day package, sets the account's
// usage thresholds to 50, 80 and 100 and activates the eSIMs, so that their 1-day
// expiry warning is due at once for the lifecycle worker of every replica. Then every
// replica reports the usage of every eSIM at once, each in another order (a report
// below the current usage is 422, one after depletion 409). It returns the ICCIDs once
// each has its esim.expiring, after one more round of every replica's worker.
func esimLifeAcrossReplicas(t *testing.T, replicas []*testServer, tok, accountID string, n int) []string {
	t.Helper()
	r0 := replicas[0]
	pick := func(i int) *testServer { return replicas[i%len(replicas)] }
	dayPass := skygate.NewID()
	acc := "/accounts/" + accountID + "/esim"
	pkgs := `[{"id":"` + dayPass + `","name":{"en":"Day pass 1 GB","ru":"Суточный 1 ГБ","uz":"Kunlik 1 GB","kk":"Тәуліктік 1 ГБ"},"countries":["UZ"],"data_mb":1000,"validity_days":1,"price":{"amount":100,"currency":"USD"},"top_up":false,"active":true}]`
	if resp, body := r0.adminCall(http.MethodPost, acc+"/packages", pkgs); resp.StatusCode != http.StatusOK {
		t.Fatalf("day pass: %d %s", resp.StatusCode, body)
	}
	if resp, body := r0.adminCall(http.MethodPost, acc+"/credits", fmt.Sprintf(`{"amount":{"amount":%d,"currency":"USD"}}`, 100*n)); resp.StatusCode != http.StatusCreated {
		t.Fatalf("credit: %d %s", resp.StatusCode, body)
	}
	if resp, body := pick(1).partnerCall(http.MethodPatch, "/v2/b2b/esim/settings", tok, `{"usage_thresholds":[50,80,100]}`, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("eSIM settings: %d %s", resp.StatusCode, body)
	}
	iccids := pick(2).mustOrderICCIDs(tok, dayPass, n)
	for i, iccid := range iccids {
		for _, step := range []string{"install", "activate"} {
			if resp, body := pick(i).partnerCall(http.MethodPost, "/v2/sandbox/esims/"+iccid+"/"+step, tok, "", nil); resp.StatusCode != http.StatusOK {
				t.Fatalf("%s %s: %d %s", step, iccid, resp.StatusCode, body)
			}
		}
	}
	used := []int{500, 800, 1000}
	var wg sync.WaitGroup
	for i, iccid := range iccids {
		for j := range replicas {
			wg.Go(func() {
				for k := range used {
					mb := used[(j+k)%len(used)]
					resp, body := pick(i+j).partnerCall(http.MethodPost, "/v2/sandbox/esims/"+iccid+"/usage", tok, `{"used_mb":`+strconv.Itoa(mb)+`}`, nil)
					if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusConflict && resp.StatusCode != http.StatusUnprocessableEntity {
						t.Errorf("usage %d of %s: %d %s", mb, iccid, resp.StatusCode, body)
					}
				}
			})
		}
	}
	wg.Wait()
	db := r0.openStore()
	for deadline := time.Now().Add(30 * time.Second); ; {
		events, err := db.EventsAfter(t.Context(), 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		warned := map[string]bool{}
		for _, e := range events {
			var d skygate.ESIMExpiringData
			if e.AccountID == accountID && e.Type == skygate.EventESIMExpiring && json.Unmarshal(e.Data, &d) == nil {
				warned[d.ICCID] = true
			}
		}
		if len(warned) == len(iccids) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("esim.expiring for %d of %d eSIMs after 30 s", len(warned), len(iccids))
		}
		time.Sleep(200 * time.Millisecond)
	}
	// The workers run every 5 s: one more round of every replica finds nothing to send.
	time.Sleep(6 * time.Second)
	return iccids
}

// checkESIMLifeEvents checks that each of iccids got esim.usage.threshold exactly once
// for each of 50, 80 and 100 and esim.expiring exactly once, for 1 day.
func checkESIMLifeEvents(t *testing.T, events []*skygate.Event, iccids []string) {
	t.Helper()
	got := map[string]int{}
	for _, e := range events {
		switch e.Type {
		case skygate.EventESIMUsageThreshold:
			var d skygate.ESIMUsageThresholdData
			_ = json.Unmarshal(e.Data, &d)
			got[fmt.Sprintf("%s threshold %d", d.ICCID, d.Threshold)]++
		case skygate.EventESIMExpiring:
			var d skygate.ESIMExpiringData
			_ = json.Unmarshal(e.Data, &d)
			got[fmt.Sprintf("%s expiring %d", d.ICCID, d.DaysLeft)]++
		}
	}
	want := map[string]int{}
	for _, iccid := range iccids {
		for _, k := range []string{"threshold 50", "threshold 80", "threshold 100", "expiring 1"} {
			want[iccid+" "+k] = 1
		}
	}
	for k, n := range got {
		if want[k] != n {
			t.Errorf("%s: %d events, want %d", k, n, want[k])
		}
	}
	for k := range want {
		if got[k] == 0 {
			t.Errorf("%s: no event", k)
		}
	}
}
