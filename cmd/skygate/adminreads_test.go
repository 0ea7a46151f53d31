package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/storetest"
)

// TestAdminAccountReads covers, on both engines, what the employee console reads of one
// account: its eSIM billing, orders and eSIMs (status and usage, never an activation
// code), its webhook subscription and deliveries, and its bookings with the account's
// and the fast-track's names. An unknown account is 404 on every one; none is audited.
func TestAdminAccountReads(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		scopes := append(append([]string{skygate.ScopeWebhooksRead, skygate.ScopeWebhooksWrite}, esimScopes...), bookingScopes...)
		c := s.mustBootstrap("readco", scopes, "--sandbox")
		tok := s.mustToken(c, "")
		acc := "/accounts/" + c.AccountID

		rc := newReceiver(t)
		resp, body := s.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks", tok, `{"url":"`+rc.srv.URL+`/hook","secret":"admin-reads-secret-0000001"}`, nil)
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("webhook: %d %s", resp.StatusCode, body)
		}
		webhookID := mustJSON(t, body)["id"].(string)

		if resp, body := s.adminCall(http.MethodPost, acc+"/esim/packages", esimPackages); resp.StatusCode != http.StatusOK {
			t.Fatalf("packages: %d %s", resp.StatusCode, body)
		}
		icc := storetest.NewICCID()
		resp, body = s.do(s.client, http.MethodPost, s.base+"/api/v1/admin"+acc+"/esim/pool",
			strings.NewReader(`[{"iccid":"`+icc+`","smdp_address":"smdp.example.com","matching_id":"SECRET-`+icc[10:]+`"}]`),
			map[string]string{"Authorization": "Bearer " + s.adminToken(), "Content-Type": "application/json"})
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("pool: %d %s", resp.StatusCode, body)
		}
		if resp, body := s.adminCall(http.MethodPost, acc+"/esim/credits", `{"amount":{"amount":1000,"currency":"USD"},"description":"prepaid"}`); resp.StatusCode != http.StatusCreated {
			t.Fatalf("credit: %d %s", resp.StatusCode, body)
		}
		resp, body = s.partnerCall(http.MethodPost, "/v2/b2b/esim/orders", tok, `{"package_id":"11111111-1111-4111-8111-111111111111","quantity":1,"partner_reference":"PNR-ADMIN"}`,
			map[string]string{"Idempotency-Key": "admin-reads-1"})
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("order: %d %s", resp.StatusCode, body)
		}
		orderID := mustJSON(t, body)["id"].(string)
		for _, step := range []struct{ path, body string }{{"install", ""}, {"activate", ""}, {"usage", `{"used_mb":250}`}} {
			if resp, body := s.partnerCall(http.MethodPost, "/v2/sandbox/esims/"+icc+"/"+step.path, tok, step.body, nil); resp.StatusCode != http.StatusOK {
				t.Fatalf("sandbox %s: %d %s", step.path, resp.StatusCode, body)
			}
		}
		ft := s.firstFastTrack(tok)
		bookingID := s.mustBook(tok, "admin-reads-b", ft, "ADMIN-READS").ID
		rc.waitFor(t, func(d delivery) bool { return d.event.Type == "booking.status.changed" })

		_, before := s.adminCall(http.MethodGet, "/audit-events?limit=500", "")
		auditBefore := mustJSON(t, before)["pagination"].(map[string]any)["total"]

		// Billing: the balance after the charge, the credit and the charge in the ledger.
		resp, body = s.adminCall(http.MethodGet, acc+"/esim/billing", "")
		var billing struct {
			Balances []skygate.Money `json:"balances"`
			Ledger   struct {
				Data []struct {
					Kind   string        `json:"kind"`
					Amount skygate.Money `json:"amount"`
				} `json:"data"`
			} `json:"ledger"`
		}
		if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &billing) != nil || len(billing.Balances) != 1 || billing.Balances[0].Amount != 550 ||
			len(billing.Ledger.Data) != 2 || billing.Ledger.Data[0].Kind != "charge" || billing.Ledger.Data[1].Kind != "credit" {
			t.Errorf("billing: %d %s", resp.StatusCode, body)
		}
		if resp.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("billing Cache-Control %q", resp.Header.Get("Cache-Control"))
		}

		// Orders and eSIMs: status, usage and the package's name, never the secret.
		resp, body = s.do(s.client, http.MethodGet, s.base+"/api/v1/admin"+acc+"/esim/orders", nil,
			map[string]string{"Authorization": "Bearer " + s.adminToken(), "Accept-Language": "ru"})
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), orderID) || !strings.Contains(string(body), "PNR-ADMIN") ||
			!strings.Contains(string(body), "Узбекистан 1 ГБ") || resp.Header.Get("Content-Language") != "ru" {
			t.Errorf("orders: %d %s", resp.StatusCode, body)
		}
		for _, secret := range []string{"SECRET-", "activation_code", "matching_id", "LPA:"} {
			if strings.Contains(string(body), secret) {
				t.Errorf("orders show %q: %s", secret, body)
			}
		}
		resp, body = s.adminCall(http.MethodGet, acc+"/esims?status=Active", "")
		var esims struct {
			Data []struct {
				ICCID  string `json:"iccid"`
				Status string `json:"status"`
				Usage  struct {
					UsedMB      int  `json:"used_mb"`
					RemainingMB *int `json:"remaining_mb"`
				} `json:"usage"`
			} `json:"data"`
		}
		if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &esims) != nil || len(esims.Data) != 1 || esims.Data[0].ICCID != icc ||
			esims.Data[0].Usage.UsedMB != 250 || esims.Data[0].Usage.RemainingMB == nil || *esims.Data[0].Usage.RemainingMB != 750 {
			t.Errorf("eSIMs: %d %s", resp.StatusCode, body)
		}
		if strings.Contains(string(body), "SECRET-") || strings.Contains(string(body), "activation_code") {
			t.Errorf("eSIMs show the secret: %s", body)
		}
		if resp, body := s.adminCall(http.MethodGet, acc+"/esims?status=Depleted", ""); resp.StatusCode != http.StatusOK || strings.Contains(string(body), icc) {
			t.Errorf("Depleted eSIMs: %d %s", resp.StatusCode, body)
		}
		// The partner still reads its activation code.
		if resp, body := s.partnerCall(http.MethodGet, "/v2/b2b/esims/"+icc, tok, "", nil); resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "LPA:1$smdp.example.com$SECRET-") {
			t.Errorf("partner eSIM: %d %s", resp.StatusCode, body)
		}

		// The webhook subscription and its deliveries with their status.
		resp, body = s.adminCall(http.MethodGet, acc+"/webhooks", "")
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), webhookID) || strings.Contains(string(body), "admin-reads-secret") {
			t.Errorf("webhooks: %d %s", resp.StatusCode, body)
		}
		resp, body = s.adminCall(http.MethodGet, acc+"/webhooks/"+webhookID+"/deliveries?limit=100", "")
		var deliveries struct {
			Data []struct {
				EventType string `json:"event_type"`
				Status    string `json:"status"`
			} `json:"data"`
		}
		if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &deliveries) != nil || len(deliveries.Data) == 0 {
			t.Errorf("deliveries: %d %s", resp.StatusCode, body)
		}

		// Bookings name their account and fast-track, in the list, one booking and complete.
		_, ftBody := s.get("/v2/catalog/fast-tracks/"+ft, tok, nil)
		ftName := mustJSON(t, ftBody)["name"].(string)
		resp, body = s.adminCall(http.MethodGet, acc+"/bookings", "")
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"account_name":"readco"`) || !strings.Contains(string(body), `"fast_track_name":`+jsonString(ftName)) ||
			!strings.Contains(string(body), `"account_id":"`+c.AccountID+`"`) {
			t.Errorf("bookings: %d %s", resp.StatusCode, body)
		}
		resp, body = s.adminCall(http.MethodGet, "/bookings/"+bookingID, "")
		if b := mustJSON(t, body); resp.StatusCode != http.StatusOK || b["account_name"] != "readco" || b["fast_track_name"] != ftName || b["account_id"] != c.AccountID {
			t.Errorf("booking: %d %s", resp.StatusCode, body)
		}

		// Reads are not audited.
		_, after := s.adminCall(http.MethodGet, "/audit-events?limit=500", "")
		if got := mustJSON(t, after)["pagination"].(map[string]any)["total"]; got != auditBefore {
			t.Errorf("admin reads were audited: %v events before, %v after", auditBefore, got)
		}

		// An unknown account is 404 on every read; another account's subscription too.
		other := s.mustBootstrap("otherco", esimScopes)
		for _, path := range []string{"/esim/billing", "/esim/orders", "/esims", "/webhooks", "/webhooks/" + webhookID + "/deliveries"} {
			if resp, body := s.adminCall(http.MethodGet, "/accounts/"+skygate.NewID()+path, ""); resp.StatusCode != http.StatusNotFound || problemOf(t, resp, body)["code"] != "NotFound" {
				t.Errorf("%s of an unknown account: %d %s", path, resp.StatusCode, body)
			}
		}
		if resp, body := s.adminCall(http.MethodGet, "/accounts/"+other.AccountID+"/webhooks/"+webhookID+"/deliveries", ""); resp.StatusCode != http.StatusNotFound {
			t.Errorf("deliveries under another account: %d %s", resp.StatusCode, body)
		}
		if resp, body := s.adminCall(http.MethodGet, "/accounts/"+other.AccountID+"/esims", ""); resp.StatusCode != http.StatusOK || strings.Contains(string(body), icc) {
			t.Errorf("eSIMs of another account: %d %s", resp.StatusCode, body)
		}
	})
}

// jsonString is s as a JSON string literal.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
