package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/storetest"
)

// payloadScopes lets one application book, order eSIMs and subscribe.
var payloadScopes = append(append([]string{skygate.ScopeWebhooksRead, skygate.ScopeWebhooksWrite}, bookingScopes...), esimScopes...)

// envelope is the part of a delivered event that TestEveryEventMatchesItsSchema reads.
type envelope struct {
	Type       string `json:"type"`
	APIVersion string `json:"api_version"`
	Livemode   bool   `json:"livemode"`
	Data       struct {
		Status    string `json:"status"`
		Threshold int    `json:"threshold"`
	} `json:"data"`
}

// subscribe creates the account's webhook subscription to rc.
func (s *testServer) subscribe(tok string, rc *receiver) string {
	s.t.Helper()
	resp, body := s.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks", tok, `{"url":"`+rc.srv.URL+`/hook","secret":"payload-secret-of-some-length"}`, nil)
	if resp.StatusCode != http.StatusCreated {
		s.t.Fatalf("subscribe: %d %s", resp.StatusCode, body)
	}
	return mustJSON(s.t, body)["id"].(string)
}

// waitEvents waits until rc got one delivery of every "type status" key in want (the
// status of the data, or the threshold of a usage event; "" for none) and returns the
// envelopes of every delivery so far.
func waitEvents(t *testing.T, rc *receiver, want ...string) []envelope {
	t.Helper()
	key := func(d delivery) (string, envelope) {
		var e envelope
		if err := json.Unmarshal(d.body, &e); err != nil {
			t.Fatalf("delivery: %v\n%s", err, d.body)
		}
		k := e.Type + " " + e.Data.Status
		if e.Data.Threshold != 0 {
			k = e.Type + " " + strconv.Itoa(e.Data.Threshold)
		}
		return k, e
	}
	for _, w := range want {
		rc.waitFor(t, func(d delivery) bool { k, _ := key(d); return k == w })
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := make([]envelope, len(rc.got))
	for i, d := range rc.got {
		_, out[i] = key(d)
	}
	return out
}

// TestEveryEventMatchesItsSchema drives every event type the service emits (a
// booking's creation, issue, confirmation, use, expiry and cancel with their passes,
// an eSIM order crossing the low-balance threshold, an eSIM's install, activation,
// usage thresholds, depletion and top-up, and webhook.test) through a real server to receivers that validate every
// body against its type's schema (validateDelivery). A sandbox application's events
// say livemode false, a production application's true; both say the api_version of
// this release, and no booking event carries a passenger's personal data.
func TestEveryEventMatchesItsSchema(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, nil))

	// A production application: its events are live.
	live := s.mustToken(s.mustBootstrap("payloads-live", payloadScopes), "")
	liveRC := newReceiver(t)
	liveHook := s.subscribe(live, liveRC)
	s.mustBook(live, "live-1", s.firstFastTrack(live), "LIVE-1")
	if resp, body := s.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks/"+liveHook+"/test", live, "", nil); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("live test event: %d %s", resp.StatusCode, body)
	}

	// A sandbox application drives everything else.
	sc := s.mustBootstrap("payloads-sandbox", payloadScopes, "--sandbox")
	sandbox := s.mustToken(sc, "")
	rc := newReceiver(t)
	hook := s.subscribe(sandbox, rc)
	ft := s.firstFastTrack(sandbox)
	// The sandbox account books priced, so that booking events carry the commercial
	// side: a price, its policy, a quote and, at the cancel, a refund.
	s.withPriceList(sc.AccountID, ft, 5000)
	resp, body := s.mtlsJSON(http.MethodPost, bookingPath+"/quotes", sandbox, pricedBookingBody(ft, "SB-1", ""))
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("quote: %d %s", resp.StatusCode, body)
	}
	resp, body = s.book(s.mtlsClient, sandbox, "sb-1", pricedBookingBody(ft, "SB-1", mustPriced(t, body).ID))
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("book with the quote: %d %s", resp.StatusCode, body)
	}

	used := mustBooking(t, body).ID
	s.waitStatus(sandbox, used, "Issued")
	if resp, body := s.bookingCall(http.MethodPost, bookingPath+"/"+used+"/confirm", sandbox); resp.StatusCode != 200 {
		t.Fatalf("confirm: %d %s", resp.StatusCode, body)
	}
	resp, body = s.do(s.client, http.MethodPost, s.base+"/api/v1/admin/bookings/"+used+"/complete", nil, map[string]string{"Authorization": "Bearer " + s.adminToken()})
	if resp.StatusCode != 200 {
		t.Fatalf("complete: %d %s", resp.StatusCode, body)
	}
	resp, body = s.book(s.mtlsClient, sandbox, "sb-2", pricedBookingBody(ft, "SB-2", ""))
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("book: %d %s", resp.StatusCode, body)
	}
	expired := mustBooking(t, body).ID
	s.waitStatus(sandbox, expired, "Issued")
	resp, body = s.do(s.mtlsClient, http.MethodPost, s.mtlsBase+"/v2/sandbox/booking/fast-tracks/"+expired+"/simulate", strings.NewReader(`{"event":"expire"}`),
		map[string]string{"Authorization": "Bearer " + sandbox, "Content-Type": "application/json"})
	if resp.StatusCode != 200 {
		t.Fatalf("simulate expire: %d %s", resp.StatusCode, body)
	}
	if resp, body := s.bookingCall(http.MethodPost, bookingPath+"/"+expired+"/cancel", sandbox); resp.StatusCode != 200 {
		t.Fatalf("cancel: %d %s", resp.StatusCode, body)
	}

	acc := "/accounts/" + sc.AccountID + "/esim"
	if resp, body := s.adminCall(http.MethodPost, acc+"/packages", esimPackages); resp.StatusCode != 200 {
		t.Fatalf("packages: %d %s", resp.StatusCode, body)
	}
	icc := storetest.NewICCID()
	resp, body = s.do(s.client, http.MethodPost, s.base+"/api/v1/admin"+acc+"/pool", strings.NewReader("iccid,smdp_address,matching_id\n"+icc+",smdp.example.com,MATCH-1\n"),
		map[string]string{"Authorization": "Bearer " + s.adminToken(), "Content-Type": "text/csv"})
	if resp.StatusCode != 201 {
		t.Fatalf("pool: %d %s", resp.StatusCode, body)
	}
	if resp, body := s.adminCall(http.MethodPost, acc+"/credits", `{"amount":{"amount":900,"currency":"USD"}}`); resp.StatusCode != 201 {
		t.Fatalf("credit: %d %s", resp.StatusCode, body)
	}
	// The order (450) takes the balance, which the bookings share, across a threshold
	// 50 below it.
	threshold := mustUSDBalance(t, s, sandbox) - 50
	if resp, body := s.partnerCall(http.MethodPatch, "/v2/b2b/billing/settings", sandbox,
		fmt.Sprintf(`{"low_balance_thresholds":[{"amount":%d,"currency":"USD"}]}`, threshold), nil); resp.StatusCode != 200 {
		t.Fatalf("billing settings: %d %s", resp.StatusCode, body)
	}
	const pkg = `{"package_id":"11111111-1111-4111-8111-111111111111"}`
	if resp, body := s.partnerCall(http.MethodPost, "/v2/b2b/esim/orders", sandbox, `{"package_id":"11111111-1111-4111-8111-111111111111","quantity":1}`, map[string]string{"Idempotency-Key": "o-1"}); resp.StatusCode != 201 {
		t.Fatalf("order: %d %s", resp.StatusCode, body)
	}
	for _, step := range []struct{ path, body string }{{"install", ""}, {"activate", ""}, {"usage", `{"used_mb":800}`}, {"usage", `{"used_mb":1000}`}} {
		if resp, body := s.partnerCall(http.MethodPost, "/v2/sandbox/esims/"+icc+"/"+step.path, sandbox, step.body, nil); resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", step.path, resp.StatusCode, body)
		}
	}
	if resp, body := s.partnerCall(http.MethodPost, "/v2/b2b/esims/"+icc+"/topups", sandbox, pkg, map[string]string{"Idempotency-Key": "t-1"}); resp.StatusCode != 201 {
		t.Fatalf("top-up: %d %s", resp.StatusCode, body)
	}
	if resp, body := s.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks/"+hook+"/test", sandbox, "", nil); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("test event: %d %s", resp.StatusCode, body)
	}

	got := waitEvents(t, rc,
		"booking.status.changed Pending", "booking.status.changed Issued", "booking.status.changed Confirmed",
		"booking.status.changed Completed", "booking.status.changed Expired", "booking.status.changed Canceled",
		"pass.status.changed Active", "pass.status.changed Used", "pass.status.changed Expired", "pass.status.changed Voided",
		"esim.order.completed ", "esim.status.changed Installed", "esim.status.changed Active",
		"esim.status.changed Depleted", "esim.usage.threshold 80", "esim.usage.threshold 100", fmt.Sprintf("billing.balance.low %d", threshold),
		"webhook.test ")
	gotLive := waitEvents(t, liveRC, "booking.status.changed Pending", "booking.status.changed Issued", "pass.status.changed Active", "webhook.test ")
	types := map[string]bool{}
	for _, mode := range []struct {
		events []envelope
		live   bool
	}{{got, false}, {gotLive, true}} {
		for _, e := range mode.events {
			types[e.Type] = true
			if e.Livemode != mode.live || e.APIVersion != skygate.APIVersion {
				t.Errorf("%s %s: livemode %v api_version %q, want %v and %q", e.Type, e.Data.Status, e.Livemode, e.APIVersion, mode.live, skygate.APIVersion)
			}
		}
	}
	for _, typ := range []string{skygate.EventBookingStatusChanged, skygate.EventPassStatusChanged, skygate.EventESIMOrderCompleted,
		skygate.EventESIMStatusChanged, skygate.EventESIMUsageThreshold, skygate.EventBillingBalanceLow, skygate.EventWebhookTest} {
		if !types[typ] {
			t.Errorf("no %s event was delivered", typ)
		}
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	commerce := 0
	for _, d := range rc.got {
		if d.event.Type == skygate.EventBookingStatusChanged && strings.Contains(string(d.body), `"price":{"amount":5000,"currency":"USD"}`) &&
			strings.Contains(string(d.body), `"scheduled_at":`) {
			commerce++
		}
	}
	if commerce != 8 { // two bookings, four statuses each
		t.Errorf("%d booking events carry the price and the flight time, want 8", commerce)
	}
	for _, d := range append(rc.got, liveRC.got...) {
		for _, personal := range []string{"1990-04-01", "FA1234567", "aziza@example.com", "+998901234567", "date_of_birth", "nationality"} {
			if strings.Contains(string(d.body), personal) {
				t.Errorf("%s carries %q: %s", d.event.Type, personal, d.body)
			}
		}
	}
}

// TestSandboxDeploymentEventsAreNotLive: in a sandbox deployment (SKYGATE_ENV=sandbox)
// the events of a production application say livemode false too: a booking's,
// including the issue that background work writes later, and a webhook.test.
func TestSandboxDeploymentEventsAreNotLive(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, map[string]string{"SKYGATE_ENV": "sandbox", "SKYGATE_DEV_IDP": "true", "SKYGATE_DEV_PKI": "true",
		"SKYGATE_WEBHOOK_ALLOW_PRIVATE": "true"}))
	tok := s.mustToken(s.mustBootstrap("payloads-sandbox-deployment", payloadScopes), "")
	rc := newReceiver(t)
	hook := s.subscribe(tok, rc)
	s.mustBook(tok, "sd-1", s.firstFastTrack(tok), "SD-1")
	if resp, body := s.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks/"+hook+"/test", tok, "", nil); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("test event: %d %s", resp.StatusCode, body)
	}
	for _, e := range waitEvents(t, rc, "booking.status.changed Pending", "booking.status.changed Issued", "pass.status.changed Active", "webhook.test ") {
		if e.Livemode {
			t.Errorf("%s %s in a sandbox deployment says livemode true", e.Type, e.Data.Status)
		}
	}
}

// mustUSDBalance returns the available USD balance of the token's account.
func mustUSDBalance(t *testing.T, s *testServer, tok string) int64 {
	t.Helper()
	resp, body := s.partnerCall(http.MethodGet, "/v2/b2b/billing?limit=1", tok, "", nil)
	var b struct {
		Balances []skygate.Balance `json:"balances"`
	}
	if err := json.Unmarshal(body, &b); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("billing: %d %s", resp.StatusCode, body)
	}
	for _, x := range b.Balances {
		if x.Currency == "USD" {
			return x.Amount
		}
	}
	t.Fatalf("no USD balance: %s", body)
	return 0
}
