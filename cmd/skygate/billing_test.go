package main

import (
	"encoding/csv"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/storetest"
)

// billingBody is the part of a billing answer TestBillingEndToEnd reads.
type billingBody struct {
	Balances []skygate.Balance `json:"balances"`
	Ledger   struct {
		Data []struct {
			Kind        string  `json:"kind"`
			BookingID   *string `json:"booking_id"`
			Reference   string  `json:"reference"`
			Description string  `json:"description"`
		} `json:"data"`
	} `json:"ledger"`
}

// TestBillingEndToEnd drives the account's ledger routes through a real server whose
// clients validate every answer against the OpenAPI document: the unified billing read
// (with either side's read scope, the same body as the eSIM path's), the low-balance
// settings and the event a crossing eSIM order writes, the monthly statement as CSV
// (formula-safe, 406 for another Accept, 400 for another month form) and the admin's
// unified alias.
func TestBillingEndToEnd(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		scopes := append(append([]string{skygate.ScopeEventsRead}, esimScopes...), bookingScopes...)
		c := s.mustBootstrap("ledgerco", scopes, "--sandbox")
		tok := s.mustToken(c, "")
		pkg := s.seedESIMCatalog(c.AccountID, 3) // 300 USD of funds, packages of 100 USD
		acc := "/accounts/" + c.AccountID + "/esim"
		if resp, body := s.adminCall(http.MethodPost, acc+"/credits", `{"amount":{"amount":5,"currency":"USD"},"description":"=HYPERLINK(\"http://x\")"}`); resp.StatusCode != http.StatusCreated {
			t.Fatalf("credit: %d %s", resp.StatusCode, body)
		}

		// Settings: set, read back, and refused input.
		resp, body := s.partnerCall(http.MethodPatch, "/v2/b2b/billing/settings", tok, `{"low_balance_thresholds":[{"amount":250,"currency":"USD"},{"amount":0,"currency":"EUR"}]}`, nil)
		if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(body)) != `{"low_balance_thresholds":[{"amount":0,"currency":"EUR"},{"amount":250,"currency":"USD"}]}` {
			t.Fatalf("PATCH settings: %d %s", resp.StatusCode, body)
		}
		if resp, got := s.partnerCall(http.MethodGet, "/v2/b2b/billing/settings", tok, "", nil); resp.StatusCode != http.StatusOK || string(got) != string(body) {
			t.Fatalf("GET settings: %d %s", resp.StatusCode, got)
		}
		if resp, body := s.partnerCall(http.MethodPatch, "/v2/b2b/billing/settings", tok, `{"low_balance_thresholds":[{"amount":1,"currency":"usd"}]}`, nil); resp.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("PATCH lower-case currency: %d %s", resp.StatusCode, body)
		}

		// An order from 305 to 205 crosses 250: one billing.balance.low.
		if resp, body := s.partnerCall(http.MethodPost, "/v2/b2b/esim/orders", tok, `{"package_id":"`+pkg+`","quantity":1}`, map[string]string{"Idempotency-Key": "o-1"}); resp.StatusCode != http.StatusCreated {
			t.Fatalf("order: %d %s", resp.StatusCode, body)
		}
		resp, body = s.partnerCall(http.MethodGet, "/api/v1/b2b/events?limit=100", tok, "", nil)
		if resp.StatusCode != http.StatusOK || strings.Count(string(body), `"type":"billing.balance.low"`) != 1 ||
			!strings.Contains(string(body), `"data":{"currency":"USD","balance":205,"threshold":250}`) {
			t.Fatalf("events: %d %s", resp.StatusCode, body)
		}

		// The unified read answers the eSIM path's body, for either side's scope.
		_, esimBilling := s.partnerCall(http.MethodGet, "/v2/b2b/esim/billing", tok, "", nil)
		resp, body = s.partnerCall(http.MethodGet, "/v2/b2b/billing", tok, "", nil)
		if resp.StatusCode != http.StatusOK || string(body) != string(esimBilling) {
			t.Fatalf("billing: %d %s\neSIM billing: %s", resp.StatusCode, body, esimBilling)
		}
		var b billingBody
		storetest.MustNoError(t, json.Unmarshal(body, &b), "billing body")
		if !reflect.DeepEqual(b.Balances, []skygate.Balance{{Amount: 205, Currency: "USD"}}) || len(b.Ledger.Data) != 3 ||
			b.Ledger.Data[0].Kind != "charge" || b.Ledger.Data[0].BookingID != nil {
			t.Fatalf("billing: %s", body)
		}
		for _, only := range [][]string{{skygate.ScopeBookingRead}, {skygate.ScopeESIMRead}} {
			ro := s.mustToken(s.mustBootstrap("ledger-"+only[0], only, "--sandbox"), "")
			if resp, body := s.partnerCall(http.MethodGet, "/v2/b2b/billing", ro, "", nil); resp.StatusCode != http.StatusOK {
				t.Errorf("billing with %v: %d %s", only, resp.StatusCode, body)
			}
			if resp, body := s.partnerCall(http.MethodPatch, "/v2/b2b/billing/settings", ro, `{"low_balance_thresholds":[]}`, nil); resp.StatusCode != http.StatusForbidden {
				t.Errorf("settings PATCH with %v: %d %s", only, resp.StatusCode, body)
			}
		}
		catalogOnly := s.mustToken(s.mustBootstrap("ledger-catalog", []string{skygate.ScopeCatalogLoungesRead}, "--sandbox"), "")
		if resp, body := s.partnerCall(http.MethodGet, "/v2/b2b/billing", catalogOnly, "", nil); resp.StatusCode != http.StatusForbidden {
			t.Errorf("billing with a catalog token: %d %s", resp.StatusCode, body)
		}

		// The month's statement, oldest first, formula-safe.
		month := time.Now().UTC().Format("2006-01")
		resp, body = s.partnerCall(http.MethodGet, "/v2/b2b/billing/statements/"+month, tok, "", map[string]string{"Accept": "text/csv"})
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") ||
			resp.Header.Get("Content-Disposition") != `attachment; filename="skygate-statement-`+month+`.csv"` {
			t.Fatalf("statement: %d %v %s", resp.StatusCode, resp.Header, body)
		}
		rows, err := csv.NewReader(strings.NewReader(string(body))).ReadAll()
		storetest.MustNoError(t, err, "statement CSV")
		// iccid ends the row since the cancel of eSIMs (issue 39).
		if len(rows) != 4 || strings.Join(rows[0], ",") != "id,created_at,kind,amount,currency,balance_after,booking_id,reference,description,iccid" ||
			rows[1][2] != "credit" || rows[2][8] != `'=HYPERLINK("http://x")` || rows[3][2] != "charge" || rows[3][3] != "-100" || rows[3][5] != "205" {
			t.Fatalf("statement rows: %q", rows)
		}
		for _, tc := range []struct{ path, accept string }{
			{"/v2/b2b/billing/statements/2000-01", "*/*"},
			{"/v2/b2b/billing/statements/2000-01", ""},
		} {
			resp, body := s.partnerCall(http.MethodGet, tc.path, tok, "", map[string]string{"Accept": tc.accept})
			if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(body)) != "id,created_at,kind,amount,currency,balance_after,booking_id,reference,description,iccid" {
				t.Errorf("%s (Accept %q): %d %s", tc.path, tc.accept, resp.StatusCode, body)
			}
		}
		if resp, body := s.partnerCall(http.MethodGet, "/v2/b2b/billing/statements/"+month, tok, "", map[string]string{"Accept": "application/json"}); resp.StatusCode != http.StatusNotAcceptable {
			t.Errorf("statement as JSON: %d %s", resp.StatusCode, body)
		}
		if resp, body := s.partnerCall(http.MethodGet, "/v2/b2b/billing/statements/2025-1", tok, "", nil); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("statement of 2025-1: %d %s", resp.StatusCode, body)
		}

		// The admin's unified alias answers what the account reads.
		_, own := s.partnerCall(http.MethodGet, "/v2/b2b/billing", tok, "", nil)
		if resp, body := s.adminCall(http.MethodGet, "/accounts/"+c.AccountID+"/billing", ""); resp.StatusCode != http.StatusOK || string(body) != string(own) {
			t.Errorf("admin billing: %d %s\nwant %s", resp.StatusCode, body, own)
		}
	})
}
