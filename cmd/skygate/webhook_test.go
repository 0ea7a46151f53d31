package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/api/apitest"
)

// validateDelivery reports an error unless body, a webhook delivery's, matches the
// schema of its event type in the document's webhooks section (apitest.ValidateEvent).
// Every test receiver calls it on every body it gets. It may be called from a
// receiver's goroutine.
func validateDelivery(t testing.TB, body []byte) {
	if err := apitest.ValidateEvent(body); err != nil {
		t.Errorf("webhook delivery: %v", err)
	}
}

// receiver is a real webhook endpoint that records every delivery, each validated
// against its event type's schema.
type receiver struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []delivery
}

type delivery struct {
	header http.Header
	body   []byte
	event  struct {
		ID   string          `json:"id"`
		Type string          `json:"type"`
		Data json.RawMessage `json:"data"`
	}
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		validateDelivery(t, body)
		d := delivery{header: r.Header.Clone(), body: body}
		_ = json.Unmarshal(body, &d.event)
		rc.mu.Lock()
		rc.got = append(rc.got, d)
		rc.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

// waitFor polls until a delivery matches.
func (rc *receiver) waitFor(t *testing.T, match func(delivery) bool) delivery {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		rc.mu.Lock()
		for _, d := range rc.got {
			if match(d) {
				rc.mu.Unlock()
				return d
			}
		}
		rc.mu.Unlock()
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("no matching delivery; got %d", len(rc.got))
	return delivery{}
}

func verifies(t *testing.T, secret string, d delivery) bool {
	t.Helper()
	wh, err := standardwebhooks.NewWebhookRaw([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	return wh.Verify(d.body, d.header) == nil
}

func TestWebhooksEndToEnd(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		scopes := append([]string{skygate.ScopeWebhooksRead, skygate.ScopeWebhooksWrite}, bookingScopes...)
		c := s.mustBootstrap("acme", scopes)
		tok := s.mustToken(c, "")
		rc := newReceiver(t)
		const secret = "a-very-long-shared-secret-0001"

		resp, body := s.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks", tok, `{"url":"`+rc.srv.URL+`/hook","secret":"`+secret+`"}`, nil)
		if resp.StatusCode != 201 || strings.Contains(string(body), secret) {
			t.Fatalf("create: %d %s", resp.StatusCode, body)
		}
		sub := mustJSON(t, body)
		id := sub["id"].(string)
		if resp.Header.Get("Location") != "/api/v1/b2b/webhooks/"+id || sub["active"] != true {
			t.Errorf("create: Location %q %v", resp.Header.Get("Location"), sub)
		}
		if resp, body := s.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks", tok, `{"url":"`+rc.srv.URL+`","secret":"`+secret+`"}`, nil); resp.StatusCode != 409 || problemOf(t, resp, body)["code"] != "WebhookExists" {
			t.Errorf("second subscription: %d %s", resp.StatusCode, body)
		}
		for _, bad := range []string{`{"url":"ftp://x.example/","secret":"` + secret + `"}`, `{"url":"https://u:p@x.example/","secret":"` + secret + `"}`, `{"url":"https://x.example/","secret":"short"}`} {
			if resp, _ := s.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks/"+id+"/change-url", tok, strings.Replace(bad, `,"secret":"`+secret+`"`, "", 1), nil); resp.StatusCode != 422 && resp.StatusCode != 400 {
				t.Errorf("change-url %s: %d", bad, resp.StatusCode)
			}
		}

		// A booking's transitions arrive signed, with the booking in the body.
		bookingID := s.mustBook(tok, "wh-1", s.firstFastTrack(tok), "WH").ID
		issued := rc.waitFor(t, func(d delivery) bool {
			return d.event.Type == "booking.status.changed" && strings.Contains(string(d.event.Data), `"status":"Issued"`)
		})
		if !verifies(t, secret, issued) || issued.header.Get("webhook-id") != issued.event.ID || !strings.Contains(string(issued.event.Data), bookingID) {
			t.Errorf("issued delivery: headers %v body %s", issued.header, issued.body)
		}
		rc.waitFor(t, func(d delivery) bool {
			return d.event.Type == "pass.status.changed" && strings.Contains(string(d.event.Data), `"status":"Active"`)
		})

		// Rotation: two signatures, new first; both secrets verify during the grace period.
		const newSecret = "another-long-shared-secret-0002"
		if resp, body := s.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks/"+id+"/rotate-secret", tok, `{"secret":"`+newSecret+`"}`, nil); resp.StatusCode != 200 || strings.Contains(string(body), newSecret) {
			t.Fatalf("rotate: %d %s", resp.StatusCode, body)
		}
		resp, body = s.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks/"+id+"/test", tok, "", nil)
		if resp.StatusCode != 202 {
			t.Fatalf("test: %d %s", resp.StatusCode, body)
		}
		test := rc.waitFor(t, func(d delivery) bool { return d.event.Type == "webhook.test" })
		sigs := strings.Fields(test.header.Get("webhook-signature"))
		if len(sigs) != 2 || !verifies(t, newSecret, test) || !verifies(t, secret, test) {
			t.Errorf("signatures after rotation: %q", test.header.Get("webhook-signature"))
		}

		// The delivery log lists every attempt.
		resp, body = s.partnerCall(http.MethodGet, "/api/v1/b2b/webhooks/"+id+"/deliveries?limit=50", tok, "", nil)
		var log struct {
			Data []struct {
				ID, Status string
				Attempts   []struct {
					StatusCode int `json:"status_code"`
				}
			} `json:"data"`
		}
		if err := json.Unmarshal(body, &log); err != nil || resp.StatusCode != 200 || len(log.Data) < 3 {
			t.Fatalf("deliveries: %d %s", resp.StatusCode, body)
		}
		deadline := time.Now().Add(10 * time.Second)
		for log.Data[0].Status != "succeeded" && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
			_, body = s.partnerCall(http.MethodGet, "/api/v1/b2b/webhooks/"+id+"/deliveries?limit=50", tok, "", nil)
			_ = json.Unmarshal(body, &log)
		}
		if log.Data[0].Status != "succeeded" || len(log.Data[0].Attempts) != 1 || log.Data[0].Attempts[0].StatusCode != 204 {
			t.Errorf("newest delivery: %+v", log.Data[0])
		}
		// Manual retry of a succeeded delivery is a conflict.
		if resp, _ := s.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks/"+id+"/deliveries/"+log.Data[0].ID+"/retry", tok, "", nil); resp.StatusCode != 409 {
			t.Errorf("retry of a succeeded delivery: %d", resp.StatusCode)
		}

		// Scopes, other accounts, delete.
		ro := s.mustToken(c, skygate.ScopeWebhooksRead)
		if resp, _ := s.partnerCall(http.MethodDelete, "/api/v1/b2b/webhooks/"+id, ro, "", nil); resp.StatusCode != 403 {
			t.Errorf("delete with a read-only token: %d", resp.StatusCode)
		}
		other := s.mustToken(s.mustBootstrap("globex", scopes), "")
		if resp, _ := s.partnerCall(http.MethodGet, "/api/v1/b2b/webhooks/"+id, other, "", nil); resp.StatusCode != 404 {
			t.Errorf("other account: %d", resp.StatusCode)
		}
		if resp, _ := s.partnerCall(http.MethodDelete, "/api/v1/b2b/webhooks/"+id, tok, "", nil); resp.StatusCode != 204 {
			t.Errorf("delete: %d", resp.StatusCode)
		}
		if _, body := s.partnerCall(http.MethodGet, "/api/v1/b2b/webhooks", tok, "", nil); !strings.Contains(string(body), `"total":0`) {
			t.Errorf("list after delete: %s", body)
		}
	})
}
