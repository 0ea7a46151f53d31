package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/storetest"
)

// Tenant isolation of the commercial side, which the matrix (TestTenantIsolationMatrix)
// cannot see: the availability route is shared (the airport's slots) but its price is
// the caller's account's, and a quote is an object named in a body, not in a path.

// TestIsolationAvailabilityPrice: on both engines, account A (a price list), B (none)
// and C (another price, another currency) read one fast-track's availability: each
// sees its own price on every slot, or null, and the same capacities.
func TestIsolationAvailabilityPrice(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		a, b, c := s.mustBootstrap("price-a", bookingScopes), s.mustBootstrap("price-b", bookingScopes), s.mustBootstrap("price-c", bookingScopes)
		tokA := s.mustToken(a, "")
		ft := s.firstFastTrack(tokA)
		s.withPriceList(a.AccountID, ft, 4200)
		storetest.MustSetFastTrackPrices(t, s.openStore(), c.AccountID, skygate.FastTrackPrice{
			FastTrackID: ft, Currency: "EUR", Adult: 3900, Child: 2000, Infant: 0})
		date := time.Now().UTC().AddDate(0, 0, 9).Format(time.DateOnly)
		path := "/v2/catalog/fast-tracks/" + ft + "/availability?date=" + date

		var capacities string
		for _, tt := range []struct {
			name string
			tok  string
			want *skygate.Money
		}{
			{"A", tokA, &skygate.Money{Amount: 4200, Currency: "USD"}},
			{"B", s.mustToken(b, ""), nil},
			{"C", s.mustToken(c, ""), &skygate.Money{Amount: 3900, Currency: "EUR"}},
		} {
			resp, body := s.get(path, tt.tok, nil)
			var av skygate.Availability
			if err := json.Unmarshal(body, &av); resp.StatusCode != http.StatusOK || err != nil || len(av.Slots) == 0 {
				t.Fatalf("%s availability: %d %v %.300s", tt.name, resp.StatusCode, err, body)
			}
			var caps []int
			for _, sl := range av.Slots {
				switch {
				case (sl.Price == nil) != (tt.want == nil):
					t.Fatalf("%s: slot %s price %v, want %v", tt.name, sl.Start, sl.Price, tt.want)
				case sl.Price != nil && *sl.Price != *tt.want:
					t.Fatalf("%s: slot %s price %v, want %v", tt.name, sl.Start, *sl.Price, *tt.want)
				}
				caps = append(caps, sl.Capacity)
			}
			if got := fmt.Sprint(caps); capacities == "" {
				capacities = got
			} else if got != capacities {
				t.Errorf("%s sees capacities %s, A %s: the slots are the airport's", tt.name, got, capacities)
			}
		}
	})
}

// TestIsolationForeignQuote: on both engines, account A's quote named in the create
// of B (no price list) or of C (its own price list) is refused as an unknown quote
// id is, 422 on quote_id with the same problem, and stays A's to use.
func TestIsolationForeignQuote(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		a, b, c := s.mustBootstrap("quote-a", bookingScopes), s.mustBootstrap("quote-b", bookingScopes), s.mustBootstrap("quote-c", bookingScopes)
		tokA, tokB, tokC := s.mustToken(a, ""), s.mustToken(b, ""), s.mustToken(c, "")
		ft := s.firstFastTrack(tokA)
		s.withPriceList(a.AccountID, ft, 5000)
		s.withPriceList(c.AccountID, ft, 5000) // the same price: only the owner differs

		resp, body := s.mtlsJSON(http.MethodPost, bookingPath+"/quotes", tokA, pricedBookingBody(ft, "QA", ""))
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("quote: %d %s", resp.StatusCode, body)
		}
		q := mustPriced(t, body)

		// The problem's public part: everything but the request's own identifiers.
		public := func(p map[string]any) string {
			return fmt.Sprint(p["status"], p["code"], p["type"], p["title"], p["detail"], p["errors"])
		}
		for _, tt := range []struct {
			name, tok string
		}{{"B (no price list)", tokB}, {"C (a price list)", tokC}} {
			resp, body := s.book(s.mtlsClient, tt.tok, "unknown", pricedBookingBody(ft, "QU", skygate.NewID()))
			if resp.StatusCode != http.StatusUnprocessableEntity {
				t.Fatalf("%s creating with an unknown quote: %d %s", tt.name, resp.StatusCode, body)
			}
			unknown := public(problemOf(t, resp, body))
			resp, body = s.book(s.mtlsClient, tt.tok, "foreign", pricedBookingBody(ft, "QF", q.ID))
			p := problemOf(t, resp, body)
			if resp.StatusCode != http.StatusUnprocessableEntity || !containsField(p, "quote_id") {
				t.Fatalf("%s creating with A's quote: %d %s, want 422 on quote_id", tt.name, resp.StatusCode, body)
			}
			if got := public(p); got != unknown {
				t.Errorf("%s creating with A's quote: %s\nunlike an unknown quote id: %s", tt.name, got, unknown)
			}
		}
		resp, body = s.book(s.mtlsClient, tokA, "own", pricedBookingBody(ft, "QA-1", q.ID))
		if got := mustPriced(t, body); resp.StatusCode != http.StatusAccepted || got.QuoteID != q.ID {
			t.Fatalf("A creating with its quote after the foreign attempts: %d %s", resp.StatusCode, body)
		}
	})
}

// containsField reports whether the problem's errors name field.
func containsField(p map[string]any, field string) bool {
	errs, _ := p["errors"].([]any)
	for _, e := range errs {
		if m, _ := e.(map[string]any); m["field"] == field {
			return true
		}
	}
	return false
}
