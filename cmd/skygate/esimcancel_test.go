package main

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/storetest"
)

// cancelPackages are a refundable package (the default window of 30 days, also a
// top-up) and one without refunds.
const cancelPackages = `[
 {"id":"33333333-3333-4333-8333-333333333333","name":{"en":"Refundable 1 GB","ru":"Возвратный 1 ГБ","uz":"Refundable 1 GB","kk":"Refundable 1 GB"},"countries":["UZ"],"data_mb":1000,"validity_days":7,"price":{"amount":450,"currency":"USD"},"top_up":true},
 {"id":"44444444-4444-4444-8444-444444444444","name":{"en":"Final 1 GB","ru":"Финальный 1 ГБ","uz":"Final 1 GB","kk":"Final 1 GB"},"countries":["UZ"],"data_mb":1000,"validity_days":7,"price":{"amount":100,"currency":"USD"},"refund_window_days":0}
]`

type esimJSON struct {
	ICCID           string     `json:"iccid"`
	Status          string     `json:"status"`
	CanceledAt      *time.Time `json:"canceled_at"`
	RefundableUntil *time.Time `json:"refundable_until"`
	CreatedAt       time.Time  `json:"created_at"`
	ActivationCode  string     `json:"activation_code"`
}

type billingJSON struct {
	Balances []skygate.Balance `json:"balances"`
	Ledger   struct {
		Data []skygate.LedgerEntry `json:"data"`
	} `json:"ledger"`
}

// TestESIMCancelEndToEnd cancels an unused eSIM through the server: 200 Canceled, its
// order's unit price and its top-up back on the balance as lines naming the ICCID,
// esim.status.changed delivered, a repeat 200 with nothing moved; an installed eSIM is
// 409 InvalidESIMStatus, one of a package without refunds 409 RefundWindowClosed; the
// history lists it all, oldest first.
func TestESIMCancelEndToEnd(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		c := s.mustBootstrap("cancelco", skygate.B2BScopes, "--sandbox")
		tok := s.mustToken(c, "")
		rc := newReceiver(t)
		s.subscribe(tok, rc)
		acc := "/accounts/" + c.AccountID + "/esim"
		if resp, body := s.adminCall(http.MethodPost, acc+"/packages", cancelPackages); resp.StatusCode != 200 {
			t.Fatalf("packages: %d %s", resp.StatusCode, body)
		}
		s.importPool(acc, 4)
		if resp, body := s.adminCall(http.MethodPost, acc+"/credits", `{"amount":{"amount":2000,"currency":"USD"}}`); resp.StatusCode != 201 {
			t.Fatalf("credit: %d %s", resp.StatusCode, body)
		}
		orderOf := func(key, pkg string, n int) (string, []string) {
			resp, body := s.partnerCall(http.MethodPost, "/v2/b2b/esim/orders", tok, `{"package_id":"`+pkg+`","quantity":`+strconv.Itoa(n)+`}`,
				map[string]string{"Idempotency-Key": key})
			var o struct {
				ID    string     `json:"id"`
				ESIMs []esimJSON `json:"esims"`
			}
			if resp.StatusCode != 201 || json.Unmarshal(body, &o) != nil {
				t.Fatalf("order: %d %s", resp.StatusCode, body)
			}
			var iccids []string
			for _, e := range o.ESIMs {
				iccids = append(iccids, e.ICCID)
			}
			return o.ID, iccids
		}
		orderID, pair := orderOf("o-1", "33333333-3333-4333-8333-333333333333", 2)
		_, final := orderOf("o-2", "44444444-4444-4444-8444-444444444444", 1)
		iccid, installed := pair[0], pair[1]
		resp, body := s.partnerCall(http.MethodPost, "/v2/b2b/esims/"+iccid+"/topups", tok, `{"package_id":"33333333-3333-4333-8333-333333333333"}`,
			map[string]string{"Idempotency-Key": "t-1"})
		var tu struct {
			ID string `json:"id"`
		}
		if resp.StatusCode != 201 || json.Unmarshal(body, &tu) != nil {
			t.Fatalf("top-up: %d %s", resp.StatusCode, body)
		}
		wantBalance(t, s, tok, 2000-900-100-450)

		// Before: refundable until 30 days after the order; a package without
		// refunds gives none.
		got := getESIMJSON(t, s, tok, iccid)
		if got.RefundableUntil == nil || !got.RefundableUntil.Equal(got.CreatedAt.AddDate(0, 0, 30)) {
			t.Errorf("refundable_until %v, want 30 days after %v", got.RefundableUntil, got.CreatedAt)
		}
		if f := getESIMJSON(t, s, tok, final[0]); f.RefundableUntil != nil {
			t.Errorf("refundable_until of a package without refunds: %v", f.RefundableUntil)
		}

		// The cancel: 200 Canceled, the unit price and the top-up back. A Canceled eSIM
		// no longer carries its activation code (the review of issue 39 found it did;
		// TestCanceledESIMEndToEnd covers every read).
		resp, body = s.partnerCall(http.MethodPost, "/v2/b2b/esims/"+iccid+"/cancel", tok, "", nil)
		var canceled esimJSON
		if resp.StatusCode != 200 || json.Unmarshal(body, &canceled) != nil || canceled.Status != "Canceled" ||
			canceled.CanceledAt == nil || canceled.RefundableUntil != nil || canceled.ActivationCode != "" {
			t.Fatalf("cancel: %d %s", resp.StatusCode, body)
		}
		wantBalance(t, s, tok, 2000-900-100-450+450+450)
		b := billing(t, s, tok)
		var refunds []string
		var sum int64
		for _, l := range b.Ledger.Data {
			sum += l.Amount.Amount
			switch {
			case l.Kind == skygate.LedgerRefund && l.ICCID != nil && *l.ICCID == iccid:
				refunds = append(refunds, l.Reference)
			case l.ICCID != nil:
				t.Errorf("%s line %s names eSIM %s", l.Kind, l.ID, *l.ICCID)
			}
		}
		slices.Sort(refunds)
		want := []string{orderID, tu.ID}
		slices.Sort(want)
		if !slices.Equal(refunds, want) {
			t.Errorf("refund lines reference %v, want %v", refunds, want)
		}
		if sum != b.Balances[0].Amount {
			t.Errorf("balance %d, Σ ledger %d", b.Balances[0].Amount, sum)
		}
		rc.waitFor(t, func(d delivery) bool {
			return d.event.Type == skygate.EventESIMStatusChanged && strings.Contains(string(d.event.Data), `"iccid":"`+iccid+`"`) &&
				strings.Contains(string(d.event.Data), `"status":"Canceled"`) && strings.Contains(string(d.event.Data), `"previous_status":"Assigned"`)
		})

		// A repeat (here with an empty object) answers the same eSIM and moves nothing.
		resp, body = s.partnerCall(http.MethodPost, "/v2/b2b/esims/"+iccid+"/cancel", tok, `{}`, nil)
		var again esimJSON
		if resp.StatusCode != 200 || json.Unmarshal(body, &again) != nil || again.Status != "Canceled" || !again.CanceledAt.Equal(*canceled.CanceledAt) {
			t.Fatalf("repeat: %d %s", resp.StatusCode, body)
		}
		wantBalance(t, s, tok, 2000-100-450)
		// A Canceled eSIM takes no top-up.
		if resp, body := s.partnerCall(http.MethodPost, "/v2/b2b/esims/"+iccid+"/topups", tok, `{"package_id":"33333333-3333-4333-8333-333333333333"}`,
			map[string]string{"Idempotency-Key": "t-2"}); resp.StatusCode != 409 || problemOf(t, resp, body)["code"] != "InvalidESIMStatus" {
			t.Errorf("top-up of a Canceled eSIM: %d %s", resp.StatusCode, body)
		}

		// Refusals.
		if resp, body := s.partnerCall(http.MethodPost, "/v2/sandbox/esims/"+installed+"/install", tok, "", nil); resp.StatusCode != 200 {
			t.Fatalf("install: %d %s", resp.StatusCode, body)
		}
		for _, tc := range []struct{ iccid, code string }{{installed, "InvalidESIMStatus"}, {final[0], "RefundWindowClosed"}} {
			resp, body := s.partnerCall(http.MethodPost, "/v2/b2b/esims/"+tc.iccid+"/cancel", tok, "", nil)
			if p := problemOf(t, resp, body); resp.StatusCode != 409 || p["code"] != tc.code {
				t.Errorf("cancel (want %s): %d %v", tc.code, resp.StatusCode, p)
			}
		}
		// The window is the one the eSIM was sold with: a package that gives refunds
		// from now on leaves an eSIM sold without one as it was.
		refundable := strings.Replace(strings.Replace(cancelPackages, `"refund_window_days":0`, `"refund_window_days":30`, 1),
			`"top_up":true},`, `"top_up":true,"refund_window_days":30},`, 1)
		if resp, body := s.adminCall(http.MethodPost, acc+"/packages", refundable); resp.StatusCode != 200 {
			t.Fatalf("packages: %d %s", resp.StatusCode, body)
		}
		if f := getESIMJSON(t, s, tok, final[0]); f.RefundableUntil != nil {
			t.Errorf("refundable_until after the package's window changed: %v", f.RefundableUntil)
		}
		resp, body = s.partnerCall(http.MethodPost, "/v2/b2b/esims/"+final[0]+"/cancel", tok, "", nil)
		if p := problemOf(t, resp, body); resp.StatusCode != 409 || p["code"] != "RefundWindowClosed" {
			t.Errorf("cancel after the package's window changed: %d %v", resp.StatusCode, p)
		}
		wantBalance(t, s, tok, 2000-100-450)

		// The history, oldest first, and paged.
		kinds := func(q string) []string {
			resp, body := s.partnerCall(http.MethodGet, "/v2/b2b/esims/"+iccid+"/history"+q, tok, "", nil)
			var h struct {
				Data []struct {
					Kind    string `json:"kind"`
					OrderID string `json:"order_id"`
				} `json:"data"`
				Pagination skygate.Pagination `json:"pagination"`
			}
			if resp.StatusCode != 200 || json.Unmarshal(body, &h) != nil || h.Pagination.Total != 5 {
				t.Fatalf("history%s: %d %s", q, resp.StatusCode, body)
			}
			var out []string
			for _, e := range h.Data {
				out = append(out, e.Kind)
			}
			return out
		}
		if got := kinds(""); !slices.Equal(got, []string{"ordered", "topped_up", "status_changed", "refunded", "refunded"}) {
			t.Errorf("history: %v", got)
		}
		if got := kinds("?limit=2&offset=1"); !slices.Equal(got, []string{"topped_up", "status_changed"}) {
			t.Errorf("history page: %v", got)
		}

		// Another account finds neither.
		other := s.mustToken(s.mustBootstrap("cancel-rival", esimScopes, "--sandbox"), "")
		for _, call := range []struct{ method, path string }{
			{http.MethodPost, "/v2/b2b/esims/" + final[0] + "/cancel"},
			{http.MethodGet, "/v2/b2b/esims/" + iccid + "/history"},
		} {
			if resp, body := s.partnerCall(call.method, call.path, other, "", nil); resp.StatusCode != 404 {
				t.Errorf("other account %s %s: %d %s", call.method, call.path, resp.StatusCode, body)
			}
		}
		wantBalance(t, s, tok, 2000-100-450)
	})
}

// importPool imports n new profiles into the account's pool (acc: the admin path
// prefix of its eSIM routes).
func (s *testServer) importPool(acc string, n int) {
	s.t.Helper()
	var csv strings.Builder
	csv.WriteString("iccid,smdp_address,matching_id\n")
	for range n {
		icc := storetest.NewICCID()
		csv.WriteString(icc + ",smdp.example.com,MATCH-" + icc[10:] + "\n")
	}
	resp, body := s.do(s.client, http.MethodPost, s.base+"/api/v1/admin"+acc+"/pool", strings.NewReader(csv.String()),
		map[string]string{"Authorization": "Bearer " + s.adminToken(), "Content-Type": "text/csv"})
	if resp.StatusCode != http.StatusCreated {
		s.t.Fatalf("pool: %d %s", resp.StatusCode, body)
	}
}

func getESIMJSON(t *testing.T, s *testServer, tok, iccid string) esimJSON {
	t.Helper()
	resp, body := s.partnerCall(http.MethodGet, "/v2/b2b/esims/"+iccid, tok, "", nil)
	var e esimJSON
	if resp.StatusCode != 200 || json.Unmarshal(body, &e) != nil {
		t.Fatalf("eSIM: %d %s", resp.StatusCode, body)
	}
	return e
}

func billing(t *testing.T, s *testServer, tok string) billingJSON {
	t.Helper()
	resp, body := s.partnerCall(http.MethodGet, "/v2/b2b/esim/billing?limit=500", tok, "", nil)
	var b billingJSON
	if resp.StatusCode != 200 || json.Unmarshal(body, &b) != nil || len(b.Balances) != 1 {
		t.Fatalf("billing: %d %s", resp.StatusCode, body)
	}
	return b
}

func wantBalance(t *testing.T, s *testServer, tok string, want int64) {
	t.Helper()
	if got := billing(t, s, tok).Balances[0].Amount; got != want {
		t.Errorf("balance %d, want %d", got, want)
	}
}
