package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/storetest"
)

// bookingBody's personal data (its nationality, two letters, is not looked for).
var bookingBodyPersonal = []string{"1990-04-01", "FA1234567", "aziza@example.com", "+998901234567"}

// TestPassengerDataEndToEnd: a booking made over mTLS with every personal field gives
// them back to its partner (the answer, its replay, GET) while the database holds none
// of them in clear, the webhooks carry the names only and no log line has them; once
// the retention has passed since its service date, the worker's maintenance removes
// them and GET shows the names, the history and the pass.
func TestPassengerDataEndToEnd(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		c := s.mustBootstrap("acme", append([]string{skygate.ScopeWebhooksRead, skygate.ScopeWebhooksWrite}, bookingScopes...))
		tok := s.mustToken(c, "")
		rc := newReceiver(t)
		if resp, body := s.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks", tok, `{"url":"`+rc.srv.URL+`","secret":"a-very-long-shared-secret-0001"}`, nil); resp.StatusCode != 201 {
			t.Fatalf("webhook: %d %s", resp.StatusCode, body)
		}
		body := bookingBody(s.firstFastTrack(tok), "PII-1")
		resp, created := s.book(s.mtlsClient, tok, "pii-1", body)
		if resp.StatusCode != 202 {
			t.Fatalf("create: %d %s", resp.StatusCode, created)
		}
		wantPersonal(t, "the answer", created, true)
		id := mustBooking(t, created).ID
		if resp, replay := s.book(s.mtlsClient, tok, "pii-1", body); resp.Header.Get("Idempotency-Status") != "reused" || !bytes.Equal(replay, created) {
			t.Errorf("replay %q differs from the answer:\n%s\n%s", resp.Header.Get("Idempotency-Status"), replay, created)
		}
		s.waitStatus(tok, id, "Issued")
		_, got := s.bookingCall(http.MethodGet, bookingPath+"/"+id, tok)
		wantPersonal(t, "GET", got, true)

		// The webhooks: the booking with the names only.
		for _, change := range []string{`"status":"Pending","previous_status":null`, `"status":"Issued","previous_status":"Pending"`} {
			d := rc.waitFor(t, func(d delivery) bool {
				return d.event.Type == skygate.EventBookingStatusChanged && strings.Contains(string(d.event.Data), change)
			})
			wantPersonal(t, change+" webhook", d.body, false)
			if !strings.Contains(string(d.body), `"passengers":[{"first_name":"Aziza","last_name":"Karimova","type":"adult"}]`) {
				t.Errorf("%s webhook without the names: %s", change, d.body)
			}
		}

		// At rest: nowhere in clear, in the rows or the logs.
		cfg := s.config()
		raw := openRawDB(t, cfg.DatabaseURL)
		storetest.MustHoldNoneInClear(t, raw, storetest.BookingTables, bookingBodyPersonal)
		storetest.MustHoldInClear(t, raw, "bookings", "Karimova")
		for _, v := range bookingBodyPersonal {
			if strings.Contains(s.stderr.String(), v) {
				t.Errorf("the log holds %q", v)
			}
		}

		// The worker's removal, as it runs the day the retention has passed since the
		// end of the service date (a UTC day).
		var b struct {
			ServiceDate string                    `json:"service_date"`
			History     []struct{ Status string } `json:"status_history"`
		}
		if err := json.Unmarshal(got, &b); err != nil {
			t.Fatal(err)
		}
		day, err := time.Parse(time.DateOnly, b.ServiceDate)
		if err != nil {
			t.Fatal(err)
		}
		db := s.openStore()
		due := day.AddDate(0, 0, 1).Add(cfg.PassengerDataRetention)
		for _, at := range []time.Time{due.Add(-time.Second), due} {
			n, err := db.ErasePassengerData(context.Background(), skygate.PassengerDataCutoff(at, cfg.PassengerDataRetention), at, 0)
			if want := map[bool]int{false: 0, true: 1}[at.Equal(due)]; err != nil || n != want {
				t.Fatalf("ErasePassengerData at %v: %d, %v; want %d", at, n, err, want)
			}
		}
		_, after := s.bookingCall(http.MethodGet, bookingPath+"/"+id, tok)
		wantPersonal(t, "GET after the retention", after, false)
		var a struct {
			Removed    *time.Time                `json:"personal_data_removed_at"`
			Passengers []skygate.Passenger       `json:"passengers"`
			History    []struct{ Status string } `json:"status_history"`
		}
		if err := json.Unmarshal(after, &a); err != nil {
			t.Fatal(err)
		}
		if a.Removed == nil || !a.Removed.Equal(due) || len(a.Passengers) != 1 || a.Passengers[0] != (skygate.Passenger{FirstName: "Aziza", LastName: "Karimova", Type: skygate.PassengerAdult}) {
			t.Errorf("booking after the retention: %s", after)
		}
		if len(a.History) != len(b.History) || len(a.History) < 2 {
			t.Errorf("history after the retention %v, before %v", a.History, b.History)
		}
		resp, pass := s.bookingCall(http.MethodGet, bookingPath+"/"+id+"/pass", tok)
		if resp.StatusCode != 200 || !strings.Contains(string(pass), `"first_name":"Aziza"`) {
			t.Errorf("pass after the retention: %d %s", resp.StatusCode, pass)
		}
		wantPersonal(t, "pass after the retention", pass, false)
	})
}

// wantPersonal fails unless body holds every one of bookingBody's personal values
// (want) or none of them.
func wantPersonal(tb testing.TB, what string, body []byte, want bool) {
	tb.Helper()
	for _, v := range bookingBodyPersonal {
		if strings.Contains(string(body), v) != want {
			tb.Errorf("%s: holds %q: %v, want %v: %s", what, v, !want, want, body)
		}
	}
}

// openRawDB opens the server's database as a dump would read it: its rows as stored.
func openRawDB(tb testing.TB, databaseURL string) *sql.DB {
	tb.Helper()
	driver, dsn := "pgx", databaseURL
	if path, ok := strings.CutPrefix(databaseURL, "sqlite://"); ok {
		driver, dsn = "sqlite", (&url.URL{Scheme: "file", Path: path, RawQuery: "mode=ro"}).String()
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}
