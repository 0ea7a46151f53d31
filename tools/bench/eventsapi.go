package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// The events API scenarios (issue 37): read throughput of full pages of a seeded feed,
// and the wake-up latency of a long-poll, from sending a write to the waiting client's
// answer. Like the other scenarios of routes being built, each is skipped when its
// route is not routed yet.

const eventsPath = "/api/v1/b2b/events"

// Scenario names of the events API.
const (
	scEventsRead = "events-read" // GET /api/v1/b2b/events, a full page of 100 seeded events
	scEventsWake = "events-wake" // long-poll wake-up: a booking's commit to the waiter's answer
)

const (
	// eventsSeedBookings are the bookings made before events-read; each writes its
	// Pending event at once and its Issued and pass events when the worker issues it.
	eventsSeedBookings = 100
	// eventsPage is the page events-read asks for.
	eventsPage = 100
	// wakeRounds bounds events-wake's rounds; it also stops at -duration, after at
	// least minWakeRounds.
	wakeRounds    = 500
	minWakeRounds = 5
	// wakeWait is each round's long-poll wait: far above any wake-up, so that a round
	// that hits it stands out.
	wakeWait = 20 * time.Second
)

// eventsPageJSON is a page of the events API.
type eventsPageJSON struct {
	Data []struct {
		ID   string `json:"id"`
		Type string `json:"type"`
	} `json:"data"`
	NextCursor string `json:"next_cursor"`
}

// readEvents GETs a page of the events API with query q.
func (s *server) readEvents(ctx context.Context, cli *http.Client, q url.Values) (eventsPageJSON, error) {
	var p eventsPageJSON
	resp, body, err := do(ctx, cli, s.bearer(vegeta.Target{Method: http.MethodGet, URL: s.http + eventsPath + "?" + q.Encode()}))
	if err != nil {
		return p, err
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &p) != nil || p.NextCursor == "" {
		return p, fmt.Errorf("GET %s?%s: %d %.300s", eventsPath, q.Encode(), resp.StatusCode, body)
	}
	return p, nil
}

// eventsHead reads the feed to its end and returns the cursor there.
func (s *server) eventsHead(ctx context.Context, cursor string) (string, error) {
	for {
		p, err := s.readEvents(ctx, s.plain, url.Values{"after": {cursor}, "limit": {"500"}})
		if err != nil {
			return "", err
		}
		cursor = p.NextCursor
		if len(p.Data) < 500 {
			return cursor, nil
		}
	}
}

// eventsRead seeds the feed with bookings and measures reads of its first full page.
func (h *harness) eventsRead(ctx context.Context, s *server, label string) (row, error) {
	r := row{Scenario: scEventsRead, Engine: s.engine}
	if missing, err := s.routeMissing(ctx, http.MethodGet, eventsPath); err != nil || missing {
		r.Skipped = "GET " + eventsPath + " is not routed yet (internal/httpapi/routes.go)"
		return r, err
	}
	l, err := s.bookingLoad(ctx)
	if err != nil {
		return r, err
	}
	targeter := l.targeter()
	for range eventsSeedBookings {
		var t vegeta.Target
		if err := targeter(&t); err != nil {
			return r, err
		}
		resp, body, err := do(ctx, s.mtlsCli, t)
		if err != nil {
			return r, err
		}
		if resp.StatusCode != http.StatusAccepted {
			return r, fmt.Errorf("seed booking: %d %.300s", resp.StatusCode, body)
		}
	}
	if p, err := s.readEvents(ctx, s.plain, url.Values{"limit": {fmt.Sprint(eventsPage)}}); err != nil {
		return r, err
	} else if len(p.Data) < eventsPage {
		return r, fmt.Errorf("seeded feed has %d events, want %d", len(p.Data), eventsPage)
	}
	t := s.bearer(vegeta.Target{Method: http.MethodGet, URL: s.http + eventsPath + "?limit=" + fmt.Sprint(eventsPage)})
	m, err := h.measure(ctx, label, s.proc, staticLoad(t, http.StatusOK, nil))
	r = httpRow(scEventsRead, s.engine, m)
	r.Note = fmt.Sprintf("a full page of %d events (of %d bookings' events), no filter, no wait", eventsPage, eventsSeedBookings)
	return r, err
}

// eventsWake measures long-poll wake-ups: in each round a client long-polls from the
// head of the feed for booking.status.changed, the harness creates a booking (whose
// Pending event commits with it), and the round's figure is the time from sending the
// booking to the waiter's answer. Before the next round the booking is issued and the
// feed read to its head, so that no event of this round wakes the next one.
func (h *harness) eventsWake(ctx context.Context, s *server) (row, error) {
	r := row{Scenario: scEventsWake, Engine: s.engine, Kind: "wake"}
	if missing, err := s.routeMissing(ctx, http.MethodGet, eventsPath); err != nil || missing {
		r.Skipped = "GET " + eventsPath + " is not routed yet (internal/httpapi/routes.go)"
		return r, err
	}
	l, err := s.bookingLoad(ctx)
	if err != nil {
		return r, err
	}
	targeter := l.targeter()
	waiter := &http.Client{Timeout: wakeWait + 10*time.Second}
	cursor, err := s.eventsHead(ctx, "")
	if err != nil {
		return r, err
	}
	var lat []time.Duration
	began := time.Now()
	for len(lat) < wakeRounds && (len(lat) < minWakeRounds || time.Since(began) < h.opts.duration) {
		type answer struct {
			p   eventsPageJSON
			at  time.Time
			err error
		}
		done := make(chan answer, 1)
		q := url.Values{"after": {cursor}, "types": {"booking.status.changed"}, "wait": {wakeWait.String()}}
		go func() {
			p, err := s.readEvents(ctx, waiter, q)
			done <- answer{p, time.Now(), err}
		}()
		// Let the long-poll reach its wait; a waiter that has not still answers, from
		// its first read, which the figure then shows as a fast round.
		select {
		case a := <-done:
			return r, fmt.Errorf("the long-poll answered before the write: %+v: %w", a.p, a.err)
		case <-time.After(50 * time.Millisecond):
		}
		var t vegeta.Target
		if err := targeter(&t); err != nil {
			return r, err
		}
		sent := time.Now()
		resp, body, err := do(ctx, s.mtlsCli, t)
		if err != nil {
			return r, err
		}
		if resp.StatusCode != http.StatusAccepted {
			return r, fmt.Errorf("booking: %d %.300s", resp.StatusCode, body)
		}
		a := <-done
		if a.err != nil {
			return r, a.err
		}
		if len(a.p.Data) == 0 {
			return r, fmt.Errorf("round %d: the long-poll ended after %v without the event", len(lat), a.at.Sub(sent))
		}
		lat = append(lat, a.at.Sub(sent))
		var b struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(body, &b); err != nil {
			return r, err
		}
		if err := s.waitIssued(ctx, b.ID); err != nil {
			return r, err
		}
		if cursor, err = s.eventsHead(ctx, a.p.NextCursor); err != nil {
			return r, err
		}
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	r.P50, r.P99 = pct(0.50), pct(0.99)
	r.RPS = float64(len(lat)) / time.Since(began).Seconds()
	r.Note = fmt.Sprintf("%d rounds; p50/p99: from sending a booking to the long-poll's answer with its event (the booking's own latency included); max %.2f ms; rps: rounds per second",
		len(lat), float64(lat[len(lat)-1].Microseconds())/1000)
	h.logf("%-16s p50 %.2f ms  p99 %.2f ms  (%d rounds)", scEventsWake+"/"+s.engine, r.P50, r.P99, len(lat))
	return r, nil
}

// waitIssued polls the booking until the worker has issued it.
func (s *server) waitIssued(ctx context.Context, id string) error {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		resp, body, err := do(ctx, s.mtlsCli, s.bearer(vegeta.Target{Method: http.MethodGet, URL: s.mtls + "/v2/b2b/booking/fast-tracks/" + id}))
		if err != nil {
			return err
		}
		var b struct {
			Status string `json:"status"`
		}
		if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &b) != nil {
			return fmt.Errorf("booking %s: %d %.300s", id, resp.StatusCode, body)
		}
		if b.Status != "Pending" {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	return fmt.Errorf("booking %s was not issued", id)
}
