package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/eventfeed"
	"github.com/skygate/skygate/internal/postgres/pgtest"
	"github.com/skygate/skygate/internal/seal"
)

// eventPageJSON is a page of the events API with each event's raw bytes.
type eventPageJSON struct {
	Data       []json.RawMessage `json:"data"`
	NextCursor string            `json:"next_cursor"`
}

// events reads a page of the events API with query q and fails unless it is 200.
func (s *testServer) events(tok, q string) eventPageJSON {
	s.t.Helper()
	resp, body := s.partnerCall(http.MethodGet, "/api/v1/b2b/events?"+q, tok, "", nil)
	if resp.StatusCode != http.StatusOK {
		s.t.Fatalf("GET events?%s: %d %s", q, resp.StatusCode, body)
	}
	var p eventPageJSON
	if err := json.Unmarshal(body, &p); err != nil || p.NextCursor == "" {
		s.t.Fatalf("events page %v: %s", err, body)
	}
	return p
}

// eventIDOf returns the id of a raw event.
func eventIDOf(t *testing.T, raw json.RawMessage) (id, typ string) {
	t.Helper()
	var e struct{ ID, Type string }
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatal(err)
	}
	return e.ID, e.Type
}

// TestEventsAPIEndToEnd follows the stream with a long-poll while a booking is created:
// the wait returns the new event as soon as it commits, not at its end; the event is
// byte for byte the body its webhook delivery carried, and one GET reads it too. The
// cursor then waits from the head, past the events the filter left out.
func TestEventsAPIEndToEnd(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		c := s.mustBootstrap("events", skygate.B2BScopes, "--sandbox")
		tok := s.mustToken(c, "")
		rc := newReceiver(t)
		secret := "events-api-secret-of-some-length"
		if resp, body := s.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks", tok, `{"url":"`+rc.srv.URL+`/hook","secret":"`+secret+`"}`, nil); resp.StatusCode != http.StatusCreated {
			t.Fatalf("webhook: %d %s", resp.StatusCode, body)
		}
		start := s.events(tok, "")
		if len(start.Data) != 0 {
			t.Fatalf("a new account has events: %s", start.Data)
		}

		const wait = 20 * time.Second
		type answer struct {
			page    eventPageJSON
			elapsed time.Duration
		}
		done := make(chan answer, 1)
		q := url.Values{"after": {start.NextCursor}, "types": {skygate.EventBookingStatusChanged}, "wait": {wait.String()}}
		go func() {
			began := time.Now()
			p := s.events(tok, q.Encode())
			done <- answer{p, time.Since(began)}
		}()
		select {
		case a := <-done:
			t.Fatalf("the long-poll answered before any event: %+v", a.page)
		case <-time.After(300 * time.Millisecond): // let it reach its wait
		}
		bookingID := s.mustBook(tok, "events-1", s.firstFastTrack(tok), "EV-1").ID
		a := <-done
		if a.elapsed >= wait/2 {
			t.Fatalf("the long-poll took %v: it was not woken by the commit", a.elapsed)
		}
		// The worker may have issued the booking before the waiter read: then the page
		// holds both booking events.
		if len(a.page.Data) == 0 || len(a.page.Data) > 2 || !bytes.Contains(a.page.Data[0], []byte(`"status":"Pending"`)) ||
			!bytes.Contains(a.page.Data[0], []byte(bookingID)) {
			t.Fatalf("long-poll page: %s", a.page.Data)
		}
		id, typ := eventIDOf(t, a.page.Data[0])
		if typ != skygate.EventBookingStatusChanged {
			t.Fatalf("event type %s", typ)
		}

		// The webhook carried the same bytes under webhook-id = the event id, and the
		// single read answers them too.
		d := rc.waitFor(t, func(d delivery) bool { return d.header.Get("webhook-id") == id })
		if !verifies(t, secret, d) || !bytes.Equal(d.body, a.page.Data[0]) {
			t.Fatalf("delivery body\n%s\nevents API\n%s", d.body, a.page.Data[0])
		}
		resp, body := s.partnerCall(http.MethodGet, "/api/v1/b2b/events/"+id, tok, "", nil)
		if resp.StatusCode != http.StatusOK || !bytes.Equal(bytes.TrimSuffix(body, []byte("\n")), d.body) {
			t.Fatalf("GET event: %d\n%s\nwant\n%s", resp.StatusCode, body, d.body)
		}

		// Issuing the booking writes more booking events: the filter and the cursor
		// see them in order, and end at the head.
		s.waitStatus(tok, bookingID, "Issued")
		all := s.events(tok, "after="+url.QueryEscape(start.NextCursor))
		var types []string
		for _, raw := range all.Data {
			_, typ := eventIDOf(t, raw)
			types = append(types, typ)
		}
		if want := "booking.status.changed booking.status.changed pass.status.changed"; strings.Join(types, " ") != want {
			t.Fatalf("feed types %v, want %s", types, want)
		}
		rest := s.events(tok, "types=booking.status.changed&after="+url.QueryEscape(a.page.NextCursor))
		if got := append(a.page.Data, rest.Data...); len(got) != 2 || !bytes.Equal(got[1], all.Data[1]) {
			t.Fatalf("after the long-poll's cursor: %s", rest.Data)
		}
		if tail := s.events(tok, "after="+url.QueryEscape(rest.NextCursor)); len(tail.Data) != 0 {
			t.Fatalf("after the head: %s", tail.Data)
		}
	})
}

// TestEventsAPIRefuses: bad parameters are 400 naming the parameter, a cursor older
// than the retention 410, another account's cursor 400, a token without events:read
// 403.
func TestEventsAPIRefuses(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, nil))
	c := s.mustBootstrap("events-bad", skygate.B2BScopes, "--sandbox")
	tok := s.mustToken(c, "")
	for _, tc := range []struct{ query, field string }{
		{"after=not-a-cursor", "after"},
		{"types=booking.created", "types"},
		{"types=booking.status.changed,,pass.status.changed", "types"},
		{"limit=0", "limit"},
		{"limit=501", "limit"},
		{"wait=31s", "wait"},
		{"wait=forever", "wait"},
		{"wait=-1s", "wait"},
		{"limit=1&limit=2", "limit"},
	} {
		resp, body := s.partnerCall(http.MethodGet, "/api/v1/b2b/events?"+tc.query, tok, "", nil)
		p := problemOf(t, resp, body)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), `"field":"`+tc.field+`"`) {
			t.Errorf("%s: %d %v", tc.query, resp.StatusCode, p)
		}
	}
	old := mustSealCursor(t, c.AccountID, eventfeed.Cursor{Pos: 1, Since: time.Now().Add(-31 * 24 * time.Hour)})
	if resp, body := s.partnerCall(http.MethodGet, "/api/v1/b2b/events?after="+old, tok, "", nil); resp.StatusCode != http.StatusGone ||
		problemOf(t, resp, body)["code"] != skygate.CodeCursorExpired {
		t.Errorf("expired cursor: %d %s", resp.StatusCode, body)
	}
	// A cursor is bound to its account: another account's, valid there, is malformed here.
	foreign := mustSealCursor(t, skygate.NewID(), eventfeed.Cursor{Pos: 1, Since: time.Now()})
	if resp, body := s.partnerCall(http.MethodGet, "/api/v1/b2b/events?after="+foreign, tok, "", nil); resp.StatusCode != http.StatusBadRequest ||
		!strings.Contains(string(body), `"field":"after"`) {
		t.Errorf("another account's cursor: %d %s", resp.StatusCode, body)
	}
	narrow := s.mustToken(c, skygate.ScopeWebhooksRead)
	if resp, body := s.partnerCall(http.MethodGet, "/api/v1/b2b/events", narrow, "", nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("without events:read: %d %s", resp.StatusCode, body)
	}
	if resp, body := s.partnerCall(http.MethodGet, "/api/v1/b2b/events/"+skygate.NewID(), tok, "", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown event: %d %s", resp.StatusCode, body)
	}
}

// mustSealCursor returns the cursor that a test server would issue to the account.
func mustSealCursor(tb testing.TB, accountID string, c eventfeed.Cursor) string {
	tb.Helper()
	key, err := hex.DecodeString(testMasterKey)
	if err != nil {
		tb.Fatal(err)
	}
	master, err := seal.New(key)
	if err != nil {
		tb.Fatal(err)
	}
	cursors, err := seal.New(master.DeriveKey(seal.PurposeEventCursor))
	if err != nil {
		tb.Fatal(err)
	}
	return eventfeed.New(eventfeed.Config{Cursors: cursors}).EncodeCursor(accountID, c)
}

// TestEventsAPIWakesAcrossReplicas: a long-poll on one replica wakes for an event that
// another replica committed, not at its wait's end. The event is a webhook test, which
// only the writer's API commits (no worker of the reader's writes it), so only the
// reader's poll of the feed head can wake the wait.
func TestEventsAPIWakesAcrossReplicas(t *testing.T) {
	t.Parallel()
	env := testEnv(t, map[string]string{"SKYGATE_DATABASE_URL": pgtest.MustDSN(t)})
	writer, reader := startServer(t, env), startServer(t, env)
	c := writer.mustBootstrap("events-replicas", skygate.B2BScopes, "--sandbox")
	tok := writer.mustToken(c, "")
	rc := newReceiver(t)
	resp, body := writer.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks", tok, `{"url":"`+rc.srv.URL+`/hook","secret":"events-replicas-secret-0001"}`, nil)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("webhook: %d %s", resp.StatusCode, body)
	}
	hookID := mustJSON(t, body)["id"].(string)
	start := reader.events(tok, "")
	const wait = 20 * time.Second
	type answer struct {
		page    eventPageJSON
		elapsed time.Duration
	}
	done := make(chan answer, 1)
	go func() {
		began := time.Now()
		p := reader.events(tok, url.Values{"after": {start.NextCursor}, "types": {skygate.EventWebhookTest}, "wait": {wait.String()}}.Encode())
		done <- answer{p, time.Since(began)}
	}()
	select {
	case a := <-done:
		t.Fatalf("the long-poll answered before any event: %+v", a.page)
	case <-time.After(300 * time.Millisecond): // let it reach its wait
	}
	if resp, body := writer.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks/"+hookID+"/test", tok, "", nil); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("test event: %d %s", resp.StatusCode, body)
	}
	a := <-done
	if a.elapsed >= wait/2 || len(a.page.Data) != 1 {
		t.Fatalf("long-poll on the other replica: %v, %s", a.elapsed, a.page.Data)
	}
}
