package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// webhookSubsHostile returns hostile requests to the routes that change what a
// subscription receives (PATCH, recover, enable), on a subscription of the account
// made for them, and a check that none of them changed its filter.
func (s *testServer) webhookSubsHostile(t *testing.T, tok string) ([]hostileCase, func()) {
	t.Helper()
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(hook.Close)
	resp, body := s.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks", tok,
		`{"url":"`+hook.URL+`/hook","secret":"hostile-secret-of-some-length","event_types":["webhook.test"]}`, nil)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("hostile webhook: %d %s", resp.StatusCode, body)
	}
	path := "/api/v1/b2b/webhooks/" + mustJSON(t, body)["id"].(string)
	h := map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "application/json"}
	patch := func(name, body string, want int) hostileCase {
		return hostileCase{name: "webhook PATCH " + name, method: "PATCH", path: path, header: h, body: body, want: want}
	}
	recoverCase := func(name, body string, want int) hostileCase {
		return hostileCase{name: "webhook recover " + name, method: "POST", path: path + "/recover", header: h, body: body, want: want}
	}
	cases := []hostileCase{
		patch("event_types a string", `{"event_types":"webhook.test"}`, 422),
		patch("event_types an object", `{"event_types":{"0":"webhook.test"}}`, 422),
		patch("event type a number", `{"event_types":[1]}`, 422),
		patch("event type null", `{"event_types":[null]}`, 422),
		patch("event type with NUL", `{"event_types":["webhook.test\u0000"]}`, 422),
		patch("event type SQL", `{"event_types":["' OR '1'='1"]}`, 422),
		patch("event type of 64 KiB", `{"event_types":["`+strings.Repeat("a", 64<<10)+`"]}`, 422),
		patch("10k event types", `{"event_types":[`+strings.TrimSuffix(strings.Repeat(`"webhook.test",`, 10000), ",")+`]}`, 422),
		patch("event_types twice", `{"event_types":["webhook.test"],"event_types":null}`, 400),
		patch("Event_Types in another case", `{"Event_Types":[]}`, 400),
		patch("an unknown field", `{"url":"https://example.com/"}`, 400),
		patch("an array", `[]`, 400),
		patch("invalid UTF-8", "{\"event_types\":[\"webhook.test\xff\"]}", 400),
		{name: "webhook PATCH as text/plain", method: "PATCH", path: path, header: map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "text/plain"}, body: `{}`, want: 415},
		{name: "webhook PATCH of a webhook id with NUL", method: "PATCH", path: "/api/v1/b2b/webhooks/a%00", header: h, body: `{}`, want: 404},
		recoverCase("since with NUL", `{"since":"2026-01-01T00:00:00Z\u0000"}`, 422),
		recoverCase("since a number", `{"since":1}`, 400),
		recoverCase("since null", `{"since":null}`, 422),
		recoverCase("since year 0", `{"since":"0000-01-01T00:00:00Z"}`, 202),
		recoverCase("since year 9999", `{"since":"9999-12-31T23:59:59Z"}`, 422),
		recoverCase("since with offset +14:00", `{"since":"2026-01-01T00:00:00+14:00"}`, 202),
		recoverCase("since of 64 KiB", `{"since":"`+strings.Repeat("9", 64<<10)+`"}`, 422),
		recoverCase("since twice", `{"since":"2026-01-01T00:00:00Z","since":"2026-01-02T00:00:00Z"}`, 400),
		{name: "webhook enable of a webhook id with NUL", method: "POST", path: "/api/v1/b2b/webhooks/a%00/enable", header: h, want: 404},
		{name: "webhook enable with a body", method: "POST", path: path + "/enable", header: h, body: `{"active":false}`, want: 200},
	}
	return cases, func() {
		t.Helper()
		_, body := s.partnerCall(http.MethodGet, path, tok, "", nil)
		if !strings.Contains(string(body), `"event_types":["webhook.test"]`) {
			t.Errorf("hostile requests changed the subscription's filter: %s", body)
		}
	}
}
