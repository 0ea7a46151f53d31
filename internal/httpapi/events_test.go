package httpapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/eventfeed"
	"github.com/skygate/skygate/internal/oauth"
	"github.com/skygate/skygate/internal/seal/sealtest"
	"github.com/skygate/skygate/internal/sqlite/sqlitetest"
	"github.com/skygate/skygate/internal/storetest"
)

// eventsFixture is a server whose events routes run as one account of a real store,
// with the events service's clock at now.
type eventsFixture struct {
	s       *Server
	hub     *eventfeed.Hub
	svc     *eventfeed.Service
	account string
}

// newEventsFixture returns the fixture; its hub takes the bounds of hc.
func newEventsFixture(t *testing.T, now time.Time, hc eventfeed.HubConfig) *eventsFixture {
	t.Helper()
	store := sqlitetest.MustOpen(t)
	acc := storetest.MustCreateAccount(t, store)
	hc.Changes = store.EventFeedChanges
	hub := eventfeed.NewHub(hc)
	svc := eventfeed.New(eventfeed.Config{Store: store, Hub: hub, Cursors: sealtest.New(t), Retention: 30 * 24 * time.Hour,
		Now: func() time.Time { return now }})
	none := http.NotFoundHandler()
	s := NewServer(Deps{Directory: store, Events: svc, TokenEndpoint: none, JWKS: none, Discovery: none})
	// The token gate is tested elsewhere; here the request is the account's.
	s.mux.Handle("GET /test/events", s.handle(func(w http.ResponseWriter, r *http.Request) error {
		stateOf(r.Context()).claims = &oauth.Claims{AccountID: acc.ID, Scopes: []string{skygate.ScopeEventsRead}}
		return s.listEvents(w, r)
	}))
	return &eventsFixture{s: s, hub: hub, svc: svc, account: acc.ID}
}

func (f *eventsFixture) get(query string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	f.s.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/test/events?"+query, nil))
	return w
}

// TestEventsCursorExpired: a cursor older than the retention and half the purge
// margin is 410 CursorExpired, a problem that says what to do; one just within it is
// read.
func TestEventsCursorExpired(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	f := newEventsFixture(t, now, eventfeed.HubConfig{})
	edge := now.Add(-30*24*time.Hour - skygate.EventRetentionMargin/2)
	old := f.svc.EncodeCursor(f.account, eventfeed.Cursor{Pos: 1, Since: edge.Add(-time.Second)})
	w := f.get("after=" + old)
	var p problem
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil || w.Code != http.StatusGone || p.Code != skygate.CodeCursorExpired ||
		w.Header().Get("Content-Type") != "application/problem+json" {
		t.Fatalf("expired cursor: %d %s", w.Code, w.Body)
	}
	for _, want := range []string{"without after", "recover"} {
		if !strings.Contains(p.Detail, want) {
			t.Errorf("detail %q does not say %q", p.Detail, want)
		}
	}
	kept := f.svc.EncodeCursor(f.account, eventfeed.Cursor{Pos: 1, Since: edge.Add(time.Second)})
	if w := f.get("after=" + kept); w.Code != http.StatusOK {
		t.Fatalf("cursor within the retention: %d %s", w.Code, w.Body)
	}
}

// TestEventsLongPollLimits: a long-poll beyond the account's bound is 429 with
// Retry-After; a drain answers the waiting one at once, with a cursor and Connection:
// close, and later ones do not wait.
func TestEventsLongPollLimits(t *testing.T) {
	t.Parallel()
	f := newEventsFixture(t, time.Now(), eventfeed.HubConfig{PerAccount: 1})
	done := make(chan *httptest.ResponseRecorder, 1)
	go func() { done <- f.get("wait=30s") }()
	for f.hub.Waiters() == 0 {
		runtime.Gosched()
	}
	w := f.get("wait=30s")
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "1" {
		t.Fatalf("second long-poll: %d %v %s", w.Code, w.Header(), w.Body)
	}
	f.s.Drain()
	w = <-done
	var page eventPage
	if err := json.Unmarshal(w.Body.Bytes(), &page); err != nil || w.Code != http.StatusOK || page.NextCursor == "" || len(page.Data) != 0 ||
		w.Header().Get("Connection") != "close" {
		t.Fatalf("drained long-poll: %d %v %s", w.Code, w.Header(), w.Body)
	}
	if w := f.get("wait=30s"); w.Code != http.StatusOK {
		t.Fatalf("long-poll after the drain: %d %s", w.Code, w.Body)
	}
}

// TestEventsLongPollServerBound: a long-poll beyond the process's bound is 429 with
// Retry-After, though its account is within its own bound.
func TestEventsLongPollServerBound(t *testing.T) {
	t.Parallel()
	f := newEventsFixture(t, time.Now(), eventfeed.HubConfig{MaxWaiters: 1})
	done := make(chan *httptest.ResponseRecorder, 1)
	go func() { done <- f.get("wait=30s") }()
	for f.hub.Waiters() == 0 {
		runtime.Gosched()
	}
	w := f.get("wait=30s")
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "1" || !strings.Contains(w.Body.String(), "this server") {
		t.Fatalf("long-poll beyond the server's bound: %d %v %s", w.Code, w.Header(), w.Body)
	}
	if w := f.get(""); w.Code != http.StatusOK {
		t.Fatalf("read without wait: %d %s", w.Code, w.Body)
	}
	f.s.Drain()
	if w := <-done; w.Code != http.StatusOK {
		t.Fatalf("drained long-poll: %d %s", w.Code, w.Body)
	}
}
