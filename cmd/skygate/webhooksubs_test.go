package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// switchReceiver is a webhook endpoint that answers every delivery with the status it
// is set to, and records each with the answer it got.
type switchReceiver struct {
	srv    *httptest.Server
	status atomic.Int32
	mu     sync.Mutex
	got    []answered
}

type answered struct {
	id, typ string
	status  int
}

func newSwitchReceiver(t *testing.T, status int) *switchReceiver {
	rc := &switchReceiver{}
	rc.status.Store(int32(status))
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var e struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(body, &e)
		code := int(rc.status.Load())
		rc.mu.Lock()
		rc.got = append(rc.got, answered{r.Header.Get("webhook-id"), e.Type, code})
		rc.mu.Unlock()
		w.WriteHeader(code)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

// waitFor polls until a delivery matches and returns it.
func (rc *switchReceiver) waitFor(t *testing.T, what string, match func(answered) bool) answered {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		rc.mu.Lock()
		for _, a := range rc.got {
			if match(a) {
				rc.mu.Unlock()
				return a
			}
		}
		rc.mu.Unlock()
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("no delivery: %s; got %v", what, rc.received())
	return answered{}
}

func (rc *switchReceiver) received() []answered {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]answered(nil), rc.got...)
}

// waitWebhook polls the subscription until ok accepts it.
func (s *testServer) waitWebhook(t *testing.T, tok, id string, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		_, body := s.partnerCall(http.MethodGet, "/api/v1/b2b/webhooks/"+id, tok, "", nil)
		w := mustJSON(t, body)
		if ok(w) {
			return w
		}
		if time.Now().After(deadline) {
			t.Fatalf("subscription: %s", body)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// TestWebhookRecoverEndToEnd: an endpoint that answers 410 disables the subscription
// (the console's admin read says why and when); after enable and recover the same
// event arrives again with the same webhook-id.
func TestWebhookRecoverEndToEnd(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		c := s.mustBootstrap("recovering", []string{skygate.ScopeWebhooksRead, skygate.ScopeWebhooksWrite})
		tok := s.mustToken(c, "")
		rc := newSwitchReceiver(t, http.StatusGone)
		start := time.Now().UTC().Add(-time.Second).Truncate(time.Microsecond)

		resp, body := s.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks", tok, `{"url":"`+rc.srv.URL+`/hook","secret":"a-very-long-shared-secret-0001"}`, nil)
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("create: %d %s", resp.StatusCode, body)
		}
		id := mustJSON(t, body)["id"].(string)
		hook := "/api/v1/b2b/webhooks/" + id
		if resp, body := s.partnerCall(http.MethodPost, hook+"/test", tok, "", nil); resp.StatusCode != http.StatusAccepted {
			t.Fatalf("test: %d %s", resp.StatusCode, body)
		}
		first := rc.waitFor(t, "the test event", func(a answered) bool { return a.typ == skygate.EventWebhookTest })
		off := s.waitWebhook(t, tok, id, func(w map[string]any) bool { return w["active"] == false })
		if off["disabled_reason"] != "gone" || off["disabled_at"] == nil {
			t.Errorf("disabled subscription: %v", off)
		}
		// The console's read of the account shows the same.
		_, body = s.adminCall(http.MethodGet, "/accounts/"+c.AccountID+"/webhooks", "")
		if !strings.Contains(string(body), `"disabled_reason":"gone"`) {
			t.Errorf("admin webhooks: %s", body)
		}

		since := `{"since":"` + start.Format(time.RFC3339Nano) + `"}`
		if resp, body := s.partnerCall(http.MethodPost, hook+"/recover", tok, since, nil); resp.StatusCode != http.StatusConflict ||
			!strings.Contains(fmt.Sprint(problemOf(t, resp, body)["detail"]), "/enable") {
			t.Errorf("recover while disabled: %d %s; want 409 naming enable", resp.StatusCode, body)
		}
		for _, bad := range []struct {
			body string
			want int
		}{
			{`{"since":"` + time.Now().Add(time.Hour).UTC().Format(time.RFC3339) + `"}`, 422},
			{`{"since":"yesterday"}`, 422},
			{`{}`, 422},
			{`{"since":"2026-01-01T00:00:00Z","until":"x"}`, 400},
		} {
			if resp, body := s.partnerCall(http.MethodPost, hook+"/recover", tok, bad.body, nil); resp.StatusCode != bad.want {
				t.Errorf("recover %s: %d %s", bad.body, resp.StatusCode, body)
			}
		}

		rc.status.Store(http.StatusNoContent)
		resp, body = s.partnerCall(http.MethodPost, hook+"/enable", tok, "", nil)
		if on := mustJSON(t, body); resp.StatusCode != http.StatusOK || on["active"] != true || on["disabled_reason"] != nil {
			t.Fatalf("enable: %d %s", resp.StatusCode, body)
		}
		resp, body = s.partnerCall(http.MethodPost, hook+"/recover", tok, since, nil)
		var got struct {
			Enqueued  int             `json:"enqueued"`
			Since     time.Time       `json:"since"`
			NextSince json.RawMessage `json:"next_since"`
		}
		if err := json.Unmarshal(body, &got); err != nil || resp.StatusCode != http.StatusAccepted || got.Enqueued != 1 ||
			!got.Since.Equal(start) || string(got.NextSince) != "null" {
			t.Fatalf("recover: %d %s", resp.StatusCode, body)
		}
		again := rc.waitFor(t, "the recovered test event", func(a answered) bool { return a.id == first.id && a.status == http.StatusNoContent })
		if again.typ != skygate.EventWebhookTest {
			t.Errorf("recovered %+v, sent first %+v", again, first)
		}
		other := s.mustToken(s.mustBootstrap("not-recovering", []string{skygate.ScopeWebhooksWrite}), "")
		if resp, _ := s.partnerCall(http.MethodPost, hook+"/recover", other, since, nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("another account's recover: %d", resp.StatusCode)
		}
	})
}

// TestWebhookRecoverRetention: a recovery reaches back as far as the configured
// event retention (SKYGATE_EVENT_RETENTION), not a default of its own.
func TestWebhookRecoverRetention(t *testing.T) {
	t.Parallel()
	e := engines[0]
	s := startServer(t, e.env(t, map[string]string{"SKYGATE_EVENT_RETENTION": "48h"}))
	tok := s.mustToken(s.mustBootstrap("retaining", []string{skygate.ScopeWebhooksRead, skygate.ScopeWebhooksWrite}), "")
	rc := newSwitchReceiver(t, http.StatusNoContent)
	resp, body := s.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks", tok, `{"url":"`+rc.srv.URL+`/hook","secret":"a-very-long-shared-secret-0001"}`, nil)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d %s", resp.StatusCode, body)
	}
	before := time.Now()
	resp, body = s.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks/"+mustJSON(t, body)["id"].(string)+"/recover", tok, `{"since":"2000-01-01T00:00:00Z"}`, nil)
	after := time.Now()
	var got struct {
		Since time.Time `json:"since"`
	}
	if err := json.Unmarshal(body, &got); err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("recover: %d %s", resp.StatusCode, body)
	}
	if lo, hi := before.Add(-48*time.Hour).Truncate(time.Microsecond), after.Add(-48*time.Hour); got.Since.Before(lo) || got.Since.After(hi) {
		t.Errorf("since %v, want 48 h before the call (%v to %v)", got.Since, lo, hi)
	}
}

// TestWebhookFilterEndToEnd: a booking's events reach a subscription that names only
// pass.status.changed as that event alone; booking.status.changed never arrives and
// has no delivery. A filter without webhook.test makes the test call a 409.
func TestWebhookFilterEndToEnd(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		scopes := append([]string{skygate.ScopeWebhooksRead, skygate.ScopeWebhooksWrite}, bookingScopes...)
		c := s.mustBootstrap("filtering", scopes)
		tok := s.mustToken(c, "")
		rc := newSwitchReceiver(t, http.StatusNoContent)

		resp, body := s.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks", tok, `{"url":"`+rc.srv.URL+`/hook","secret":"a-very-long-shared-secret-0001","event_types":["pass.status.changed","webhook.test"]}`, nil)
		if resp.StatusCode != http.StatusCreated || !strings.Contains(string(body), `"event_types":["pass.status.changed","webhook.test"]`) {
			t.Fatalf("create: %d %s", resp.StatusCode, body)
		}
		id := mustJSON(t, body)["id"].(string)
		hook := "/api/v1/b2b/webhooks/" + id
		s.mustBook(tok, "filter-1", s.firstFastTrack(tok), "FILTER")
		rc.waitFor(t, "pass.status.changed", func(a answered) bool { return a.typ == skygate.EventPassStatusChanged })
		// A test event written after the booking's events arrives after them too, had
		// they been queued: none of booking.status.changed was.
		if resp, body := s.partnerCall(http.MethodPost, hook+"/test", tok, "", nil); resp.StatusCode != http.StatusAccepted {
			t.Fatalf("test: %d %s", resp.StatusCode, body)
		}
		rc.waitFor(t, "webhook.test", func(a answered) bool { return a.typ == skygate.EventWebhookTest })
		for _, a := range rc.received() {
			if a.typ == skygate.EventBookingStatusChanged {
				t.Errorf("a filtered-out event arrived: %+v", a)
			}
		}
		_, body = s.partnerCall(http.MethodGet, hook+"/deliveries?limit=100", tok, "", nil)
		if strings.Contains(string(body), skygate.EventBookingStatusChanged) {
			t.Errorf("a filtered-out event has a delivery: %s", body)
		}

		for _, bad := range []struct {
			body string
			want int
		}{
			{`{"event_types":["booking.created"]}`, 422},
			{`{"event_types":["webhook.test","webhook.test"]}`, 422},
			{`{"event_types":["webhook.subscription.disabled"]}`, 422},
			{`{"url":"https://elsewhere.example/"}`, 400},
		} {
			if resp, body := s.partnerCall(http.MethodPatch, hook, tok, bad.body, nil); resp.StatusCode != bad.want {
				t.Errorf("PATCH %s: %d %s", bad.body, resp.StatusCode, body)
			}
		}
		resp, body = s.partnerCall(http.MethodPatch, hook, tok, `{"event_types":["booking.status.changed"]}`, map[string]string{"Content-Type": "application/merge-patch+json"})
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"event_types":["booking.status.changed"]`) {
			t.Fatalf("PATCH: %d %s", resp.StatusCode, body)
		}
		resp, body = s.partnerCall(http.MethodPost, hook+"/test", tok, "", nil)
		if p := problemOf(t, resp, body); resp.StatusCode != http.StatusConflict || !strings.Contains(p["detail"].(string), "webhook.test") {
			t.Errorf("test with webhook.test filtered out: %d %s", resp.StatusCode, body)
		}
		resp, body = s.partnerCall(http.MethodPatch, hook, tok, `{"event_types":null}`, nil)
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"event_types":[]`) {
			t.Errorf("PATCH null: %d %s", resp.StatusCode, body)
		}
	})
}
