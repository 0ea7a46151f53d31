package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"
)

// receiver is a local webhook endpoint for the webhooks scenario. It counts the
// deliveries, checks the order of each booking's events (Skygate delivers one
// booking's events in commit order, so each one's previous_status is the status the
// one before it set) and times every event from its created_at to its arrival, apart
// for a booking's first event, which waits for no other, and for the later ones,
// which may wait for their predecessors: the difference shows what ordering costs.
// onIssued, when set, is called once per booking whose Issued event arrives; it must
// not block.
type receiver struct {
	srv      *http.Server
	url      string
	onIssued func(bookingID string)

	mu         sync.Mutex
	n          int64
	first, at  time.Time
	seen       map[string]bool
	duplicates int
	bookings   map[string]*bookingTrail
	outOfOrder int
	firstWait  []time.Duration
	laterWait  []time.Duration
}

// bookingTrail is what arrived of one booking: the last booking and pass statuses and
// how many of its events.
type bookingTrail struct {
	status, pass string
	events       int
}

// deliveryFigures are what the receiver saw of a webhooks run.
type deliveryFigures struct {
	Bookings   int   `json:"bookings"`
	Events     int64 `json:"events"`
	Duplicates int   `json:"duplicates"`
	// OutOfOrder counts events whose previous_status was not the status the booking's
	// last event set: zero while ordering holds (duplicates are not counted).
	OutOfOrder int `json:"out_of_order"`
	// Cancels counts the cancels sent on Issued, each writing two more events.
	Cancels int64 `json:"follow_up_cancels"`
	// First* time a booking's first event, Later* the others, from created_at to
	// arrival, ms.
	FirstP50 float64 `json:"first_event_p50_ms"`
	FirstP99 float64 `json:"first_event_p99_ms"`
	LaterP50 float64 `json:"later_event_p50_ms"`
	LaterP99 float64 `json:"later_event_p99_ms"`
}

func newReceiver(onIssued func(bookingID string)) (*receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	rc := &receiver{url: "http://" + ln.Addr().String() + "/hook", onIssued: onIssued,
		seen: map[string]bool{}, bookings: map[string]*bookingTrail{}}
	rc.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.record(time.Now(), r.Header.Get("webhook-id"), body)
		w.WriteHeader(http.StatusNoContent)
	}), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = rc.srv.Serve(ln) }()
	return rc, nil
}

// record takes one delivery that arrived at now.
func (rc *receiver) record(now time.Time, id string, body []byte) {
	var env struct {
		Type      string    `json:"type"`
		CreatedAt time.Time `json:"created_at"`
		Data      struct {
			BookingID      string  `json:"booking_id"`
			Status         string  `json:"status"`
			PreviousStatus *string `json:"previous_status"`
		} `json:"data"`
	}
	_ = json.Unmarshal(body, &env) // an unexpected body counts as a delivery alone
	issued := false
	rc.mu.Lock()
	rc.n++
	if rc.first.IsZero() {
		rc.first = now
	}
	rc.at = now
	switch {
	case rc.seen[id]:
		rc.duplicates++
	case env.Type == "booking.status.changed" || env.Type == "pass.status.changed":
		rc.seen[id] = true
		t := rc.bookings[env.Data.BookingID]
		if t == nil {
			t = &bookingTrail{}
			rc.bookings[env.Data.BookingID] = t
		}
		last := &t.status
		if env.Type == "pass.status.changed" {
			last = &t.pass
		}
		prev := ""
		if env.Data.PreviousStatus != nil {
			prev = *env.Data.PreviousStatus
		}
		if prev != *last {
			rc.outOfOrder++
		}
		*last = env.Data.Status
		if t.events == 0 {
			rc.firstWait = append(rc.firstWait, now.Sub(env.CreatedAt))
		} else {
			rc.laterWait = append(rc.laterWait, now.Sub(env.CreatedAt))
		}
		t.events++
		issued = env.Type == "booking.status.changed" && env.Data.Status == "Issued"
	default:
		rc.seen[id] = true
	}
	rc.mu.Unlock()
	if issued && rc.onIssued != nil {
		rc.onIssued(env.Data.BookingID)
	}
}

func (rc *receiver) last() time.Time {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.at
}

func (rc *receiver) stats() (int64, time.Time, time.Time) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.n, rc.first, rc.at
}

// figures returns what arrived so far.
func (rc *receiver) figures() *deliveryFigures {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	f := &deliveryFigures{Bookings: len(rc.bookings), Events: int64(len(rc.seen)),
		Duplicates: rc.duplicates, OutOfOrder: rc.outOfOrder}
	if len(rc.firstWait) > 0 {
		s := slices.Sorted(slices.Values(rc.firstWait))
		f.FirstP50, f.FirstP99 = quantileMS(s, 0.5), quantileMS(s, 0.99)
	}
	if len(rc.laterWait) > 0 {
		s := slices.Sorted(slices.Values(rc.laterWait))
		f.LaterP50, f.LaterP99 = quantileMS(s, 0.5), quantileMS(s, 0.99)
	}
	return f
}

func (rc *receiver) close() { _ = rc.srv.Close() }
