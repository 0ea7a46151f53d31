package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/storetest"
)

var esimScopes = []string{skygate.ScopeCatalogESIMRead, skygate.ScopeESIMRead, skygate.ScopeESIMWrite}

// partnerCall sends a request with a B2B token on the plain listener.
func (s *testServer) partnerCall(method, path, tok, body string, h map[string]string) (*http.Response, []byte) {
	s.t.Helper()
	hdr := map[string]string{"Authorization": "Bearer " + tok}
	for k, v := range h {
		hdr[k] = v
	}
	if body == "" {
		return s.do(s.client, method, s.base+path, nil, hdr)
	}
	if hdr["Content-Type"] == "" {
		hdr["Content-Type"] = "application/json"
	}
	return s.do(s.client, method, s.base+path, strings.NewReader(body), hdr)
}

const esimPackages = `[
 {"id":"11111111-1111-4111-8111-111111111111","name":{"en":"Uzbekistan 1 GB","ru":"Узбекистан 1 ГБ","uz":"Oʻzbekiston 1 GB","kk":"Өзбекстан 1 ГБ"},"countries":["UZ"],"data_mb":1000,"validity_days":7,"price":{"amount":450,"currency":"USD"},"top_up":true,"active":true},
 {"id":"22222222-2222-4222-8222-222222222222","name":{"en":"Central Asia 5 GB","ru":"Центральная Азия 5 ГБ","uz":"Markaziy Osiyo 5 GB","kk":"Орталық Азия 5 ГБ"},"countries":["UZ","KZ","KG"],"data_mb":5000,"validity_days":15,"price":{"amount":1500,"currency":"USD"},"top_up":false}
]`

func TestESIMEndToEnd(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		c := s.mustBootstrap("travelco", esimScopes, "--sandbox")
		tok := s.mustToken(c, "")
		acc := "/accounts/" + c.AccountID + "/esim"

		// Admin: packages, a pool of three (CSV), funds for two 1 GB eSIMs and a top-up.
		resp, body := s.adminCall(http.MethodPost, acc+"/packages", esimPackages)
		if resp.StatusCode != 200 {
			t.Fatalf("packages: %d %s", resp.StatusCode, body)
		}
		// The second package was sent without "active": it is active.
		var set struct {
			Packages []struct {
				ID     string `json:"id"`
				Active bool   `json:"active"`
			} `json:"packages"`
		}
		storetest.MustNoError(t, json.Unmarshal(body, &set), "packages answer")
		for _, p := range set.Packages {
			if !p.Active {
				t.Errorf("package %s is retired; it was sent active or without \"active\"", p.ID)
			}
		}
		if len(set.Packages) != 2 {
			t.Errorf("packages answer lists %d packages, want 2", len(set.Packages))
		}
		csv := "iccid,smdp_address,matching_id\n"
		for range 3 {
			icc := storetest.NewICCID()
			csv += icc + ",smdp.example.com,MATCH-" + icc[10:] + "\n"
		}
		resp, body = s.do(s.client, http.MethodPost, s.base+"/api/v1/admin"+acc+"/pool", strings.NewReader(csv),
			map[string]string{"Authorization": "Bearer " + s.adminToken(), "Content-Type": "text/csv"})
		if resp.StatusCode != 201 || !strings.Contains(string(body), `"imported":3`) {
			t.Fatalf("pool: %d %s", resp.StatusCode, body)
		}
		// The same upload again: duplicates reported, nothing imported.
		resp, body = s.do(s.client, http.MethodPost, s.base+"/api/v1/admin"+acc+"/pool", strings.NewReader(csv),
			map[string]string{"Authorization": "Bearer " + s.adminToken(), "Content-Type": "text/csv"})
		if resp.StatusCode != 422 {
			t.Errorf("duplicate pool upload: %d %s", resp.StatusCode, body)
		}
		if resp, body := s.adminCall(http.MethodPost, acc+"/credits", `{"amount":{"amount":1200,"currency":"USD"},"description":"prepaid"}`); resp.StatusCode != 201 {
			t.Fatalf("credit: %d %s", resp.StatusCode, body)
		}

		// Partner: the catalog in Russian, conditional.
		resp, body = s.partnerCall(http.MethodGet, "/v2/catalog/esim/packages?country=KZ", tok, "", map[string]string{"Accept-Language": "ru"})
		if resp.StatusCode != 200 || !strings.Contains(string(body), "Центральная Азия") || strings.Contains(string(body), "11111111-1111-4111-8111-111111111111") {
			t.Fatalf("packages: %d %s", resp.StatusCode, body)
		}
		if resp, _ := s.partnerCall(http.MethodGet, "/v2/catalog/esim/packages?country=KZ", tok, "", map[string]string{"Accept-Language": "ru", "If-None-Match": resp.Header.Get("ETag")}); resp.StatusCode != 304 {
			t.Errorf("conditional packages: %d", resp.StatusCode)
		}

		// Orders: 5 GB is too expensive for two (402); two 1 GB ones fit; a third profile
		// is left, so four would exhaust the pool (409).
		order := func(key, body string) (*http.Response, []byte) {
			return s.partnerCall(http.MethodPost, "/v2/b2b/esim/orders", tok, body, map[string]string{"Idempotency-Key": key})
		}
		if resp, body := order("o-1", `{"package_id":"22222222-2222-4222-8222-222222222222","quantity":1}`); resp.StatusCode != 402 || problemOf(t, resp, body)["code"] != "InsufficientFunds" {
			t.Errorf("expensive order: %d %s", resp.StatusCode, body)
		}
		if resp, body := order("o-2", `{"package_id":"11111111-1111-4111-8111-111111111111","quantity":4}`); resp.StatusCode != 402 && resp.StatusCode != 409 {
			t.Errorf("too large an order: %d %s", resp.StatusCode, body)
		}
		resp, body = order("o-3", `{"package_id":"11111111-1111-4111-8111-111111111111","quantity":2,"partner_reference":"PNR-9"}`)
		if resp.StatusCode != 201 || resp.Header.Get("Idempotency-Status") != "created" {
			t.Fatalf("order: %d %s", resp.StatusCode, body)
		}
		var o struct {
			ID    string
			ESIMs []struct {
				ICCID          string `json:"iccid"`
				Status         string
				ActivationCode string `json:"activation_code"`
			} `json:"esims"`
		}
		if err := json.Unmarshal(body, &o); err != nil || len(o.ESIMs) != 2 || !strings.HasPrefix(o.ESIMs[0].ActivationCode, "LPA:1$smdp.example.com$MATCH-") {
			t.Fatalf("order body %v: %s", err, body)
		}
		if resp, replay := order("o-3", `{"quantity":2,"package_id":"11111111-1111-4111-8111-111111111111","partner_reference":"PNR-9"}`); resp.StatusCode != 201 || resp.Header.Get("Idempotency-Status") != "reused" || !bytes.Contains(replay, []byte(o.ID)) {
			t.Errorf("replay: %d %q", resp.StatusCode, resp.Header.Get("Idempotency-Status"))
		}
		if resp, body := order("o-3", `{"package_id":"11111111-1111-4111-8111-111111111111","quantity":1}`); resp.StatusCode != 409 || problemOf(t, resp, body)["code"] != "IdempotencyConflict" {
			t.Errorf("key reuse: %d", resp.StatusCode)
		}
		if resp, body := order("", `{"package_id":"11111111-1111-4111-8111-111111111111","quantity":1}`); resp.StatusCode != 400 {
			t.Errorf("missing key: %d %s", resp.StatusCode, body)
		}
		if resp, _ := order("o-4", `{"package_id":"11111111-1111-4111-8111-111111111111","quantity":51}`); resp.StatusCode != 422 {
			t.Errorf("quantity 51: %d", resp.StatusCode)
		}

		// Sandbox drives the first eSIM to 80 % and 100 %.
		iccid := o.ESIMs[0].ICCID
		for _, step := range []struct{ path, body, status string }{
			{"install", "", "Installed"}, {"activate", "", "Active"},
			{"usage", `{"used_mb":800}`, "Active"}, {"usage", `{"used_mb":1000}`, "Depleted"},
		} {
			resp, body := s.partnerCall(http.MethodPost, "/v2/sandbox/esims/"+iccid+"/"+step.path, tok, step.body, nil)
			if resp.StatusCode != 200 || !strings.Contains(string(body), `"status":"`+step.status+`"`) {
				t.Fatalf("%s: %d %s", step.path, resp.StatusCode, body)
			}
		}
		// A top-up makes it Active again (after more funds).
		if resp, body := s.adminCall(http.MethodPost, acc+"/credits", `{"amount":{"amount":300,"currency":"USD"}}`); resp.StatusCode != 201 {
			t.Fatalf("second credit: %d %s", resp.StatusCode, body)
		}
		resp, body = s.partnerCall(http.MethodPost, "/v2/b2b/esims/"+iccid+"/topups", tok, `{"package_id":"11111111-1111-4111-8111-111111111111"}`, map[string]string{"Idempotency-Key": "t-1"})
		if resp.StatusCode != 201 || !strings.Contains(string(body), `"status":"Active"`) {
			t.Fatalf("top-up: %d %s", resp.StatusCode, body)
		}
		resp, png := s.partnerCall(http.MethodGet, "/v2/b2b/esims/"+iccid+"/qr", tok, "", nil)
		if resp.StatusCode != 200 || !bytes.HasPrefix(png, []byte("\x89PNG")) {
			t.Errorf("QR: %d", resp.StatusCode)
		}
		resp, body = s.partnerCall(http.MethodGet, "/v2/b2b/esim/billing?limit=10", tok, "", nil)
		if resp.StatusCode != 200 || !strings.Contains(string(body), `"balances":[{"amount":`+fmt.Sprint(1200+300-900-450)+`,"currency":"USD","reserved":0}]`) {
			t.Errorf("billing: %d %s", resp.StatusCode, body)
		}
		for _, path := range []string{"/v2/b2b/esims?status=Active", "/v2/b2b/esim/orders", "/v2/b2b/esim/orders/" + o.ID, "/v2/b2b/esims/" + iccid} {
			if resp, body := s.partnerCall(http.MethodGet, path, tok, "", nil); resp.StatusCode != 200 {
				t.Errorf("%s: %d %s", path, resp.StatusCode, body)
			}
		}

		// Another account sees none of it.
		other := s.mustToken(s.mustBootstrap("rival", esimScopes, "--sandbox"), "")
		for _, call := range []struct{ method, path, body string }{
			{http.MethodGet, "/v2/b2b/esim/orders/" + o.ID, ""},
			{http.MethodGet, "/v2/b2b/esims/" + iccid, ""},
			{http.MethodGet, "/v2/b2b/esims/" + iccid + "/qr", ""},
			{http.MethodPost, "/v2/sandbox/esims/" + iccid + "/install", ""},
			{http.MethodGet, "/v2/catalog/esim/packages/11111111-1111-4111-8111-111111111111", ""},
		} {
			if resp, body := s.partnerCall(call.method, call.path, other, call.body, nil); resp.StatusCode != 404 {
				t.Errorf("other account %s %s: %d %s", call.method, call.path, resp.StatusCode, body)
			}
		}
		resp, body = s.partnerCall(http.MethodPost, "/v2/b2b/esims/"+iccid+"/topups", other, `{"package_id":"11111111-1111-4111-8111-111111111111"}`, map[string]string{"Idempotency-Key": "t-1"})
		if resp.StatusCode != 404 {
			t.Errorf("other account's top-up: %d %s", resp.StatusCode, body)
		}

		// A top-up without a key is refused; a production application may not use the
		// sandbox routes.
		if resp, body := s.partnerCall(http.MethodPost, "/v2/b2b/esims/"+iccid+"/topups", tok, `{"package_id":"11111111-1111-4111-8111-111111111111"}`, nil); resp.StatusCode != 400 {
			t.Errorf("top-up without Idempotency-Key: %d %s", resp.StatusCode, body)
		}
		prod := s.mustToken(s.mustBootstrap("travelco-prod", esimScopes), "")
		for _, step := range []struct{ path, body string }{{"install", ""}, {"activate", ""}, {"usage", `{"used_mb":1}`}} {
			resp, body := s.partnerCall(http.MethodPost, "/v2/sandbox/esims/"+iccid+"/"+step.path, prod, step.body, nil)
			if p := problemOf(t, resp, body); resp.StatusCode != 403 || p["code"] != "Forbidden" {
				t.Errorf("sandbox %s by a production application: %d %v", step.path, resp.StatusCode, p)
			}
		}

		// No event carries an activation code or a matching id.
		db := s.openStore()
		events, err := db.EventsAfter(t.Context(), 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		types := map[string]bool{}
		for _, ev := range events {
			if ev.AccountID != c.AccountID {
				continue
			}
			types[ev.Type] = true
			if bytes.Contains(ev.Data, []byte("LPA:")) || bytes.Contains(ev.Data, []byte("MATCH-")) {
				t.Errorf("%s event carries an activation code: %s", ev.Type, ev.Data)
			}
		}
		for _, want := range []string{"esim.order.completed", "esim.usage.threshold", "esim.status.changed"} {
			if !types[want] {
				t.Errorf("no %s event among %v", want, types)
			}
		}

		// The pool counts and the audit log.
		if _, body := s.adminCall(http.MethodGet, acc+"/pool", ""); !strings.Contains(string(body), `"total":3`) {
			t.Errorf("pool counts: %s", body)
		}
		if _, body := s.adminCall(http.MethodGet, "/audit-events?account_id="+c.AccountID, ""); !strings.Contains(string(body), "esim.pool.import") || strings.Contains(string(body), "MATCH-") {
			t.Errorf("audit: %.400s", body)
		}
	})
}

// TestDemoAccountHasESIMData: a development server's demo account can order at once.
func TestDemoAccountHasESIMData(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, nil))
	demo := demoClient(t, s.stdout.String())
	tok := s.mustToken(demo, "")
	resp, body := s.partnerCall(http.MethodGet, "/v2/catalog/esim/packages", tok, "", nil)
	var page catalogPage
	if resp.StatusCode != 200 || json.Unmarshal(body, &page) != nil || len(page.Data) < 3 {
		t.Fatalf("demo packages: %d %s", resp.StatusCode, body)
	}
	resp, body = s.partnerCall(http.MethodPost, "/v2/b2b/esim/orders", tok, `{"package_id":"`+page.Data[0].ID+`","quantity":1}`, map[string]string{"Idempotency-Key": "demo-1"})
	if resp.StatusCode != 201 {
		t.Fatalf("demo order: %d %s", resp.StatusCode, body)
	}
}
