package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// The eSIM side of TestCrashMoney: eSIMs ordered and some canceled for a refund while
// the server is killed; after the last restart every order was charged once and
// every Canceled eSIM refunded once.

// crashESIM is what the checks read of an eSIM.
type crashESIM struct {
	ICCID   string `json:"iccid"`
	OrderID string `json:"order_id"`
	Status  string `json:"status"`
}

// crashESIMs reads every eSIM of the token's account.
func (s *testServer) crashESIMs(t *testing.T, tok string) []crashESIM {
	t.Helper()
	var out []crashESIM
	for offset := 0; ; offset += 500 {
		resp, body := s.partnerCall(http.MethodGet, fmt.Sprintf("/v2/b2b/esims?limit=500&offset=%d", offset), tok, "", nil)
		var page struct {
			Data       []crashESIM `json:"data"`
			Pagination struct{ Total int }
		}
		if err := json.Unmarshal(body, &page); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("list eSIMs: %d %.300s", resp.StatusCode, body)
		}
		out = append(out, page.Data...)
		if len(page.Data) == 0 || offset+len(page.Data) >= page.Pagination.Total {
			return out
		}
	}
}

// checkCrashESIMs checks each eSIM's lines: its order's charge of price, once, and for
// a Canceled eSIM one refund of price naming it; no refund names any other eSIM. It
// returns the number of Canceled eSIMs.
func checkCrashESIMs(t *testing.T, price int64, esims []crashESIM, entries []crashEntry) (canceled int) {
	t.Helper()
	charges := map[string][]int64{} // order id → its charge lines
	refunds := map[string][]int64{} // iccid → its refund lines
	for _, e := range entries {
		switch {
		case e.ICCID != nil:
			if e.Kind != skygate.LedgerRefund {
				t.Errorf("a %s line names eSIM %s", e.Kind, *e.ICCID)
			}
			refunds[*e.ICCID] = append(refunds[*e.ICCID], e.Amount.Amount)
		case e.Kind == skygate.LedgerCharge && e.BookingID == nil:
			charges[e.Reference] = append(charges[e.Reference], e.Amount.Amount)
		}
	}
	for _, e := range esims {
		if got := charges[e.OrderID]; len(got) != 1 || got[0] != -price {
			t.Errorf("eSIM %s: its order %s was charged %v, want once %d", e.ICCID, e.OrderID, got, -price)
		}
		want := []int64(nil)
		if e.Status == string(skygate.ESIMCanceled) {
			canceled++
			want = []int64{price}
		}
		if got := refunds[e.ICCID]; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("eSIM %s (%s): refunds %v, want %v", e.ICCID, e.Status, got, want)
		}
		delete(refunds, e.ICCID)
	}
	for iccid, r := range refunds {
		t.Errorf("refunds %v name %s, which is not an eSIM of the account", r, iccid)
	}
	return canceled
}

// untilICCID GETs the order at url until it answers, and returns its first eSIM's
// ICCID ("" when it never answered).
func untilICCID(t *testing.T, c *http.Client, url, tok string) string {
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := c.Do(req)
		if err == nil {
			var o struct {
				ESIMs []struct {
					ICCID string `json:"iccid"`
				} `json:"esims"`
			}
			derr := json.NewDecoder(resp.Body).Decode(&o)
			resp.Body.Close()
			switch {
			case resp.StatusCode == http.StatusOK && derr == nil && len(o.ESIMs) == 1:
				return o.ESIMs[0].ICCID
			case resp.StatusCode < 500:
				t.Errorf("GET %s: %d", url, resp.StatusCode)
				return ""
			}
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Errorf("GET %s never answered", url)
	return ""
}
