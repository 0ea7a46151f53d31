package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/skygate/skygate"
)

// fastTrackPrice reads the price of a fast-track item of the catalog.
func fastTrackPrice(tb testing.TB, body []byte) *skygate.Money {
	tb.Helper()
	var ft struct {
		Price *skygate.Money `json:"price"`
	}
	if err := json.Unmarshal(body, &ft); err != nil {
		tb.Fatalf("%v: %.300s", err, body)
	}
	return ft.Price
}

// TestFastTrackPriceLists covers, on both engines, an account's price list through the
// admin API (validation with every problem at once, replace, read, unknown account),
// the catalog's price for the account with and without one, ETags that follow the
// list, the capacity routes, and the audit records of both writes.
func TestFastTrackPriceLists(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		priced, plain := s.mustBootstrap("priced", catalogScopes), s.mustBootstrap("plain", catalogScopes)
		tokPriced, tokPlain := s.mustToken(priced, ""), s.mustToken(plain, "")
		ft := s.firstFastTrack(tokPriced)
		prices := "/accounts/" + priced.AccountID + "/fast-track-prices"

		resp, body := s.adminCall(http.MethodGet, prices, "")
		if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(body)) != `{"data":[],"updated_at":null}` {
			t.Fatalf("list never set: %d %s", resp.StatusCode, body)
		}
		item := "/v2/catalog/fast-tracks/" + ft
		resp, body = s.get(item, tokPriced, nil)
		if resp.StatusCode != http.StatusOK || fastTrackPrice(t, body) != nil {
			t.Fatalf("item without a price list: %d %s", resp.StatusCode, body)
		}
		before := resp.Header.Get("ETag")

		// Every problem at once.
		resp, body = s.adminCall(http.MethodPut, prices, `[{"fast_track_id":"`+skygate.NewID()+`","currency":"usd","adult":0,"child":-1},`+
			`{"fast_track_id":"`+ft+`","currency":"USD","adult":100},{"fast_track_id":"`+ft+`","currency":"USD","adult":100}]`)
		if resp.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("invalid list: %d %s", resp.StatusCode, body)
		}
		var fields []string
		for _, f := range problemOf(t, resp, body)["errors"].([]any) {
			fields = append(fields, f.(map[string]any)["field"].(string))
		}
		for _, want := range []string{"[0].fast_track_id", "[0].currency", "[0].adult", "[0].child", "[2].fast_track_id"} {
			if !slices.Contains(fields, want) {
				t.Errorf("errors %v lack %s", fields, want)
			}
		}

		resp, body = s.adminCall(http.MethodPut, prices, `[{"fast_track_id":"`+ft+`","currency":"USD","adult":3500,"infant":0}]`)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("set: %d %s", resp.StatusCode, body)
		}
		var list struct {
			Data      []skygate.FastTrackPrice `json:"data"`
			UpdatedAt *string                  `json:"updated_at"`
		}
		if err := json.Unmarshal(body, &list); err != nil || list.UpdatedAt == nil ||
			!slices.Equal(list.Data, []skygate.FastTrackPrice{{FastTrackID: ft, Currency: "USD", Adult: 3500, Child: 3500, Infant: 0}}) {
			t.Fatalf("stored list: %s (%v)", body, err)
		}
		if resp, got := s.adminCall(http.MethodGet, prices, ""); resp.StatusCode != http.StatusOK || string(got) != string(body) {
			t.Fatalf("read back: %d %s, want %s", resp.StatusCode, got, body)
		}
		// A JSON null is no way to remove the list: it is refused and the list stays.
		if resp, got := s.adminCall(http.MethodPut, prices, `null`); resp.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("null list: %d %s, want 422", resp.StatusCode, got)
		}
		if resp, got := s.adminCall(http.MethodPut, prices, `"[]"`); resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("a string list: %d %s, want 400", resp.StatusCode, got)
		}
		if resp, got := s.adminCall(http.MethodGet, prices, ""); resp.StatusCode != http.StatusOK || string(got) != string(body) {
			t.Fatalf("read back after null: %d %s, want %s", resp.StatusCode, got, body)
		}

		// The catalog follows the list; the old validator no longer matches.
		resp, body = s.get(item, tokPriced, map[string]string{"If-None-Match": before})
		if resp.StatusCode != http.StatusOK || *fastTrackPrice(t, body) != (skygate.Money{Amount: 3500, Currency: "USD"}) {
			t.Fatalf("item with a price list: %d %s", resp.StatusCode, body)
		}
		after := resp.Header.Get("ETag")
		if after == before {
			t.Fatalf("ETag %s did not change with the price list", after)
		}
		if resp, _ := s.get(item, tokPriced, map[string]string{"If-None-Match": after}); resp.StatusCode != http.StatusNotModified {
			t.Fatalf("If-None-Match of the priced item: %d, want 304", resp.StatusCode)
		}
		_, listed := s.get("/v2/catalog/fast-tracks?iata=TAS&limit=1", tokPriced, nil)
		var items struct {
			Data []json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(listed, &items); err != nil || len(items.Data) != 1 || fastTrackPrice(t, items.Data[0]) == nil {
			t.Fatalf("the list shows no price: %s", listed)
		}
		resp, body = s.get(item, tokPlain, nil)
		if resp.StatusCode != http.StatusOK || fastTrackPrice(t, body) != nil || resp.Header.Get("ETag") == after {
			t.Fatalf("another account's item: %d %s (ETag %s)", resp.StatusCode, body, resp.Header.Get("ETag"))
		}

		// Removing the list takes the price away and changes the ETag again.
		if resp, body := s.adminCall(http.MethodPut, prices, `[]`); resp.StatusCode != http.StatusOK {
			t.Fatalf("remove: %d %s", resp.StatusCode, body)
		}
		resp, body = s.get(item, tokPriced, map[string]string{"If-None-Match": after})
		if resp.StatusCode != http.StatusOK || fastTrackPrice(t, body) != nil {
			t.Fatalf("item after removal: %d %s", resp.StatusCode, body)
		}

		if resp, body := s.adminCall(http.MethodPut, "/accounts/"+skygate.NewID()+"/fast-track-prices", `[]`); resp.StatusCode != http.StatusNotFound {
			t.Fatalf("unknown account: %d %s", resp.StatusCode, body)
		}

		// Capacity: the catalog's until an admin sets one.
		capacity := "/fast-tracks/" + ft + "/capacity"
		resp, body = s.adminCall(http.MethodGet, capacity, "")
		if got := mustJSON(t, body); resp.StatusCode != http.StatusOK || got["overridden"] != false || got["capacity_per_slot"] != got["catalog_capacity_per_slot"] {
			t.Fatalf("capacity: %d %s", resp.StatusCode, body)
		}
		resp, body = s.adminCall(http.MethodPut, capacity, `{"capacity_per_slot":60}`)
		if got := mustJSON(t, body); resp.StatusCode != http.StatusOK || got["overridden"] != true || got["capacity_per_slot"] != 60.0 {
			t.Fatalf("set capacity: %d %s", resp.StatusCode, body)
		}
		if resp, got := s.adminCall(http.MethodGet, capacity, ""); resp.StatusCode != http.StatusOK || string(got) != string(body) {
			t.Fatalf("capacity read back: %d %s, want %s", resp.StatusCode, got, body)
		}
		if resp, body := s.adminCall(http.MethodPut, capacity, `{"capacity_per_slot":10001}`); resp.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("capacity 10001: %d %s", resp.StatusCode, body)
		}

		// Reset: the catalog's applies again; resetting again answers the same.
		for range 2 {
			resp, body = s.adminCall(http.MethodDelete, capacity, "")
			if got := mustJSON(t, body); resp.StatusCode != http.StatusOK || got["overridden"] != false ||
				got["capacity_per_slot"] != got["catalog_capacity_per_slot"] || got["fast_track_id"] != ft {
				t.Fatalf("reset capacity: %d %s", resp.StatusCode, body)
			}
			if resp, got := s.adminCall(http.MethodGet, capacity, ""); resp.StatusCode != http.StatusOK || string(got) != string(body) {
				t.Fatalf("capacity after reset: %d %s, want %s", resp.StatusCode, got, body)
			}
		}
		if resp, body := s.adminCall(http.MethodDelete, "/fast-tracks/"+skygate.NewID()+"/capacity", ""); resp.StatusCode != http.StatusNotFound {
			t.Fatalf("reset of an unknown fast-track: %d %s", resp.StatusCode, body)
		}

		// The records show what changed: the list set then removed, the capacity over
		// the catalog's, then reset to it twice.
		set := `{"fast_track_id":"` + ft + `","currency":"USD","adult":3500,"child":3500,"infant":0}`
		wantDetails(t, s, "fast_track.prices.set&account_id="+priced.AccountID,
			`{"prices":[`+set+`],"previous":[]}`, `{"prices":[],"previous":[`+set+`]}`)
		_, catalogBody := s.adminCall(http.MethodGet, capacity, "")
		wantDetails(t, s, "fast_track.capacity.set",
			fmt.Sprintf(`{"capacity_per_slot":60,"catalog_capacity_per_slot":%v,"previous_capacity_per_slot":null}`, mustJSON(t, catalogBody)["catalog_capacity_per_slot"]))
		wantDetails(t, s, "fast_track.capacity.reset",
			fmt.Sprintf(`{"catalog_capacity_per_slot":%v,"previous_capacity_per_slot":60}`, mustJSON(t, catalogBody)["catalog_capacity_per_slot"]),
			fmt.Sprintf(`{"catalog_capacity_per_slot":%v,"previous_capacity_per_slot":null}`, mustJSON(t, catalogBody)["catalog_capacity_per_slot"]))
	})
}

// wantDetails checks that the audit records of query (an action and filters) have
// exactly the details want, in any order, each compared as JSON.
func wantDetails(tb testing.TB, s *testServer, query string, want ...string) {
	tb.Helper()
	resp, body := s.adminCall(http.MethodGet, "/audit-events?action="+query, "")
	var page struct {
		Data []struct {
			Details json.RawMessage `json:"details"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &page); resp.StatusCode != http.StatusOK || err != nil || len(page.Data) != len(want) {
		tb.Fatalf("audit of %s: %d %s, want %d records", query, resp.StatusCode, body, len(want))
	}
	var got, wanted []string
	for i, r := range page.Data {
		got = append(got, canonicalJSON(tb, r.Details))
		wanted = append(wanted, canonicalJSON(tb, []byte(want[i])))
	}
	slices.Sort(got)
	slices.Sort(wanted)
	if !slices.Equal(got, wanted) {
		tb.Errorf("audit details of %s:\n got %v\nwant %v", query, got, wanted)
	}
}

// canonicalJSON re-encodes b with sorted keys.
func canonicalJSON(tb testing.TB, b []byte) string {
	tb.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		tb.Fatalf("%v: %s", err, b)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// TestDemoAccountHasPrices: a development server's demo account sees a price on every
// fast-track, in the currency of its credit.
func TestDemoAccountHasPrices(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, nil))
	tok := s.mustToken(demoClient(t, s.stdout.String()), "")
	_, body := s.get("/v2/catalog/fast-tracks?limit=500", tok, nil)
	var page struct {
		Data []json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &page); err != nil || len(page.Data) == 0 {
		t.Fatalf("demo fast-tracks: %v %.300s", err, body)
	}
	for _, item := range page.Data {
		if p := fastTrackPrice(t, item); p == nil || p.Currency != "USD" || p.Amount < 2500 {
			t.Fatalf("demo fast-track without a USD price: %.300s", item)
		}
	}
}
