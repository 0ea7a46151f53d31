package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/storetest"
)

// pricedBookingBody is bookingBody with the flight's scheduled time at noon (hub
// time) of its service date, and quoteID when not "".
func pricedBookingBody(fastTrackID, ref, quoteID string) string {
	date := time.Now().UTC().AddDate(0, 0, 7).Format(time.DateOnly)
	body := strings.Replace(bookingBody(fastTrackID, ref), `"direction":"departure"}`,
		`"direction":"departure","scheduled_at":"`+date+`T12:00"}`, 1)
	if quoteID != "" {
		body = strings.Replace(body, `{"fast_track_id"`, `{"quote_id":"`+quoteID+`","fast_track_id"`, 1)
	}
	return body
}

// withPriceList gives the account a price list pricing the fast-track at adult US
// cents, and credit to pay for the test's bookings.
func (s *testServer) withPriceList(accountID, fastTrackID string, adult int64) {
	s.t.Helper()
	db := s.openStore()
	storetest.MustSetFastTrackPrices(s.t, db, accountID, skygate.FastTrackPrice{
		FastTrackID: fastTrackID, Currency: "USD", Adult: adult, Child: adult, Infant: 0})
	storetest.MustCredit(s.t, db, accountID, 1_000_000, "USD")
}

// mtlsJSON sends a JSON body (none when "") over mTLS with the token.
func (s *testServer) mtlsJSON(method, path, tok, body string) (*http.Response, []byte) {
	s.t.Helper()
	h := map[string]string{"Authorization": "Bearer " + tok}
	if body == "" {
		return s.do(s.mtlsClient, method, s.mtlsBase+path, nil, h)
	}
	h["Content-Type"] = "application/json"
	return s.do(s.mtlsClient, method, s.mtlsBase+path, strings.NewReader(body), h)
}

type pricedJSON struct {
	ID                 string           `json:"id"`
	Price              *skygate.Money   `json:"price"`
	Refund             *skygate.Money   `json:"refund"`
	Fee                *skygate.Money   `json:"fee"`
	QuoteID            string           `json:"quote_id"`
	ExpiresAt          time.Time        `json:"expires_at"`
	CancellationPolicy []map[string]any `json:"cancellation_policy"`
}

func mustPriced(tb testing.TB, body []byte) pricedJSON {
	tb.Helper()
	var v pricedJSON
	if err := json.Unmarshal(body, &v); err != nil {
		tb.Fatalf("%v: %.300s", err, body)
	}
	return v
}

// TestQuotesAndRefunds walks a priced booking through the HTTP API: a quote, a
// create that locks it, its reuse refused, a replay answered, the refund quote, a
// cancel that expects another refund refused and one that expects the right one done.
// Every answer is checked against the contract by the test clients.
func TestQuotesAndRefunds(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		c := s.mustBootstrap("priced", bookingScopes)
		tok := s.mustToken(c, "")
		other := s.mustToken(s.mustBootstrap("unpriced", bookingScopes), "")
		ft := s.firstFastTrack(tok)
		const quotes = bookingPath + "/quotes"

		// Without a price list there is nothing to quote.
		if resp, body := s.mtlsJSON(http.MethodPost, quotes, tok, pricedBookingBody(ft, "Q-0", "")); resp.StatusCode != 422 ||
			!strings.Contains(string(body), `"field":"fast_track_id"`) {
			t.Fatalf("quote without a price list: %d %s", resp.StatusCode, body)
		}
		s.withPriceList(c.AccountID, ft, 5000)
		// With one, a booking must name its flight time.
		if resp, body := s.book(s.mtlsClient, tok, "no-time", bookingBody(ft, "P-0")); resp.StatusCode != 422 ||
			!strings.Contains(string(body), `"field":"flight.scheduled_at"`) {
			t.Fatalf("priced create without scheduled_at: %d %s", resp.StatusCode, body)
		}

		resp, body := s.mtlsJSON(http.MethodPost, quotes, tok, pricedBookingBody(ft, "Q-1", ""))
		if resp.StatusCode != 201 {
			t.Fatalf("quote: %d %s", resp.StatusCode, body)
		}
		q := mustPriced(t, body)
		if *q.Price != (skygate.Money{Amount: 5000, Currency: "USD"}) || time.Until(q.ExpiresAt) > 15*time.Minute || q.CancellationPolicy == nil {
			t.Errorf("quote %s", body)
		}

		resp, created := s.book(s.mtlsClient, tok, "q-1", pricedBookingBody(ft, "P-1", q.ID))
		b := mustPriced(t, created)
		if resp.StatusCode != 202 || b.QuoteID != q.ID || *b.Price != *q.Price {
			t.Fatalf("create with the quote: %d %s", resp.StatusCode, created)
		}
		if resp, body := s.book(s.mtlsClient, tok, "q-2", pricedBookingBody(ft, "P-2", q.ID)); resp.StatusCode != 409 || problemOf(t, resp, body)["code"] != "QuoteUsed" {
			t.Errorf("second create with the quote: %d %s", resp.StatusCode, body)
		}
		if resp, body := s.book(s.mtlsClient, other, "q-3", pricedBookingBody(ft, "P-3", q.ID)); resp.StatusCode != 422 ||
			!strings.Contains(string(body), `"field":"quote_id"`) {
			t.Errorf("another account's create with the quote: %d %s", resp.StatusCode, body)
		}
		if resp, replay := s.book(s.mtlsClient, tok, "q-1", pricedBookingBody(ft, "P-1", q.ID)); resp.StatusCode != 202 ||
			resp.Header.Get("Idempotency-Status") != "reused" || string(replay) != string(created) {
			t.Errorf("replay of the create with the quote: %d %s", resp.StatusCode, replay)
		}

		cancellation := bookingPath + "/" + b.ID + "/cancellation"
		resp, body = s.mtlsJSON(http.MethodGet, cancellation, tok, "")
		if cq := mustPriced(t, body); resp.StatusCode != 200 || cq.Refund.Amount != 5000 || cq.Fee.Amount != 0 {
			t.Errorf("cancellation: %d %s", resp.StatusCode, body)
		}
		if resp, _ := s.mtlsJSON(http.MethodGet, cancellation, other, ""); resp.StatusCode != 404 {
			t.Errorf("another account's cancellation: %d", resp.StatusCode)
		}
		cancel := bookingPath + "/" + b.ID + "/cancel"
		resp, body = s.mtlsJSON(http.MethodPost, cancel, tok, `{"expected_refund":{"amount":1,"currency":"USD"}}`)
		if p := problemOf(t, resp, body); resp.StatusCode != 409 || p["code"] != "RefundChanged" ||
			fmt.Sprint(p["refund"]) != "map[amount:5000 currency:USD]" {
			t.Errorf("cancel expecting another refund: %d %s", resp.StatusCode, body)
		}
		resp, body = s.mtlsJSON(http.MethodPost, cancel, tok, `{"expected_refund":{"amount":5000,"currency":"USD"}}`)
		if got := mustPriced(t, body); resp.StatusCode != 200 || got.Refund == nil || got.Refund.Amount != 5000 {
			t.Errorf("cancel: %d %s", resp.StatusCode, body)
		}
		if resp, body := s.mtlsJSON(http.MethodGet, cancellation, tok, ""); resp.StatusCode != 409 || problemOf(t, resp, body)["code"] != "InvalidBookingStatus" {
			t.Errorf("cancellation of a canceled booking: %d %s", resp.StatusCode, body)
		}

		// An account without a price list books, and cancels, as before.
		plain := s.mustBook(other, "plain", ft, "U-1")
		resp, body = s.mtlsJSON(http.MethodGet, bookingPath+"/"+plain.ID+"/cancellation", other, "")
		if resp.StatusCode != 200 || string(body) != "{\"refund\":null,\"fee\":null}\n" {
			t.Errorf("cancellation of an unpriced booking: %d %s", resp.StatusCode, body)
		}
		resp, body = s.mtlsJSON(http.MethodPost, bookingPath+"/"+plain.ID+"/cancel", other, "")
		if resp.StatusCode != 200 || strings.Contains(string(body), `"refund"`) || strings.Contains(string(body), `"price"`) {
			t.Errorf("cancel of an unpriced booking: %d %s", resp.StatusCode, body)
		}
		// It refunds nothing: expecting 0 (any currency) cancels, anything else is 409.
		plain = s.mustBook(other, "plain-2", ft, "U-2")
		resp, body = s.mtlsJSON(http.MethodPost, bookingPath+"/"+plain.ID+"/cancel", other, `{"expected_refund":{"amount":1,"currency":"USD"}}`)
		if p := problemOf(t, resp, body); resp.StatusCode != 409 || p["code"] != "RefundChanged" || p["refund"] != nil {
			t.Errorf("cancel of an unpriced booking expecting 1: %d %s", resp.StatusCode, body)
		}
		resp, body = s.mtlsJSON(http.MethodPost, bookingPath+"/"+plain.ID+"/cancel", other, `{"expected_refund":{"amount":0,"currency":"EUR"}}`)
		if resp.StatusCode != 200 || !strings.Contains(string(body), `"status":"Canceled"`) || strings.Contains(string(body), `"refund"`) {
			t.Errorf("cancel of an unpriced booking expecting 0: %d %s", resp.StatusCode, body)
		}
	})
}
