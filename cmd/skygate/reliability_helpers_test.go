package main

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// Helpers of the reliability tests (crash, outage, scale-out).

// runWorkers starts n goroutines; worker w calls step(w, i) for i = 0, 1, … until ctx
// ends. The returned wait blocks until every worker has returned.
func runWorkers(ctx context.Context, n int, step func(w, i int)) (wait func()) {
	var wg sync.WaitGroup
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				step(w, i)
			}
		}()
	}
	return wg.Wait
}

// waitIssued waits until the account behind tok has no Pending booking left.
func (s *testServer) waitIssued(t *testing.T, tok string, deadline time.Time) {
	t.Helper()
	for {
		resp, body := s.bookingCall(http.MethodGet, bookingPath+"?status=Pending&limit=1", tok)
		if resp.StatusCode == 200 && strings.Contains(string(body), `"total":0`) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("bookings still Pending: %.300s", body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitDelivered waits until hooks has received every event of the account in the
// outbox, and returns those events.
func waitDelivered(t *testing.T, db database, accountID string, hooks *hookLog, deadline time.Time) []*skygate.Event {
	t.Helper()
	for {
		all, err := db.EventsAfter(context.Background(), 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		var events []*skygate.Event
		missing := 0
		for _, e := range all {
			if e.AccountID == accountID {
				events = append(events, e)
				if !hooks.has(e.ID) {
					missing++
				}
			}
		}
		if missing == 0 {
			return events
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d events never delivered", missing, len(events))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkOnePerKey checks that every acknowledged key (also the partner_reference)
// made exactly one stored resource, the acknowledged one, and that nothing else was
// stored.
func checkOnePerKey(t *testing.T, what string, acked map[string]string, stored []refItem) {
	t.Helper()
	byRef := map[string][]string{}
	for _, it := range stored {
		byRef[it.Ref] = append(byRef[it.Ref], it.ID)
	}
	for key, id := range acked {
		if got := byRef[key]; len(got) != 1 || got[0] != id {
			t.Errorf("%s key %s: acknowledged %s, stored %v", what, key, id, got)
		}
	}
	if len(byRef) != len(acked) {
		t.Errorf("%d distinct %s references stored for %d acknowledged keys", len(byRef), what, len(acked))
	}
}
