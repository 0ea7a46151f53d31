package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// The booking-priced scenario, "create with reservation": the booking scenario for an
// account with a price list. Each create names its flight's scheduled time, so that
// it takes places in that one-hour slot, and reserves its price on the account's
// prepaid balance, all in the create's transaction (internal/{sqlite,postgres}/
// commerce.go). Its own account keeps the other scenarios' account without a price
// list, whose creates need no flight time.

// Days ahead the priced creates' flights are spread over: from a week, clear of any
// lead time, to well inside the service's booking horizon (366 days).
const (
	pricedFirstDay = 7
	pricedLastDay  = 300
)

// pricedSlot is a flight time of the priced creates: a local date at the hub and an
// "HH:MM" within the fast-track's business hours.
type pricedSlot struct{ date, hhmm string }

// bookingPriced measures creates with reservation on a fresh account: a price list,
// a capacity override and a prepaid credit seeded through the store as an admin
// would, then one booking per request, each with a fresh Idempotency-Key, over mTLS.
func (h *harness) bookingPriced(ctx context.Context, s *server, label string) (row, error) {
	creds, err := h.bootstrap(ctx, s.env, "bench-priced")
	if err != nil {
		return row{}, err
	}
	token, err := s.getToken(ctx, creds)
	if err != nil {
		return row{}, err
	}
	ft, err := s.tasFastTrack(ctx)
	if err != nil {
		return row{}, err
	}
	if err := seedPricedBooking(ctx, s.databaseURL, creds.AccountID, ft); err != nil {
		return row{}, fmt.Errorf("seed the price list: %w", err)
	}
	slots, err := s.pricedSlots(ctx, token, ft)
	if err != nil {
		return row{}, err
	}
	l := pricedBookingLoad(s.mtls+bookingsPath, token, ft, slots)
	l.tls = s.mtlsTLS
	// One create outside the load proves the seed: it is priced.
	var probe vegeta.Target
	if err := l.targeter()(&probe); err != nil {
		return row{}, err
	}
	resp, body, err := do(ctx, s.mtlsCli, probe)
	if err != nil {
		return row{}, err
	}
	var created struct {
		Price *struct {
			Amount int64 `json:"amount"`
		} `json:"price"`
	}
	if resp.StatusCode != http.StatusAccepted || json.Unmarshal(body, &created) != nil || created.Price == nil || created.Price.Amount != benchAdultPrice {
		return row{}, fmt.Errorf("priced create probe: %d %.300s", resp.StatusCode, body)
	}
	m, err := h.measure(ctx, label, s.proc, l)
	r := httpRow(scBookingPriced, s.engine, m)
	r.Note = fmt.Sprintf("mTLS, keep-alive; each request a new priced booking, round-robin over %d slots of %d places in %d days, reserving %d US cents of a prepaid balance",
		len(slots), benchSlotCapacity, pricedLastDay-pricedFirstDay+1, benchAdultPrice)
	return r, err
}

// bookingsPath is the create route of fast-track bookings.
const bookingsPath = "/v2/b2b/booking/fast-tracks"

// pricedSlots returns the flight times the priced creates cycle over: for every day
// from pricedFirstDay to pricedLastDay ahead, the half hour of each slot of the
// fast-track's business hours that day but its first and last (which may open or
// close within the hour). The hours of each weekday come from the availability route.
func (s *server) pricedSlots(ctx context.Context, token, ft string) ([]pricedSlot, error) {
	today := time.Now().UTC()
	hours := map[time.Weekday][]string{}
	for d := pricedFirstDay; d < pricedFirstDay+7; d++ {
		day := today.AddDate(0, 0, d)
		t := vegeta.Target{Method: http.MethodGet, URL: s.http + "/v2/catalog/fast-tracks/" + ft + "/availability?date=" + day.Format(time.DateOnly),
			Header: http.Header{"Authorization": {"Bearer " + token}}}
		resp, body, err := do(ctx, s.plain, t)
		if err != nil {
			return nil, err
		}
		var av struct {
			Slots []struct {
				Start string `json:"start"`
			} `json:"slots"`
		}
		if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &av) != nil {
			return nil, fmt.Errorf("availability: %d %.300s", resp.StatusCode, body)
		}
		open := av.Slots
		if len(open) > 2 {
			open = open[1 : len(open)-1]
		}
		for _, sl := range open {
			hours[day.Weekday()] = append(hours[day.Weekday()], sl.Start[:3]+"30")
		}
	}
	var slots []pricedSlot
	for d := pricedFirstDay; d <= pricedLastDay; d++ {
		day := today.AddDate(0, 0, d)
		for _, hhmm := range hours[day.Weekday()] {
			slots = append(slots, pricedSlot{date: day.Format(time.DateOnly), hhmm: hhmm})
		}
	}
	if len(slots) == 0 {
		return nil, fmt.Errorf("fast-track %s is never open", ft)
	}
	return slots, nil
}

// pricedBookingLoad creates a booking per request at url, each with a fresh
// Idempotency-Key and the next of slots as its flight time, round-robin, so that
// consecutive creates land in different slots and none fills.
func pricedBookingLoad(url, token, ft string, slots []pricedSlot) httpLoad {
	var seq atomic.Int64
	run := time.Now().UnixNano()
	auth := "Bearer " + token
	return httpLoad{want: http.StatusAccepted, targeter: func() vegeta.Targeter {
		return func(t *vegeta.Target) error {
			n := seq.Add(1)
			sl := slots[int(n%int64(len(slots)))]
			var b bytes.Buffer
			fmt.Fprintf(&b, `{"fast_track_id":%q,"service_date":%q,"flight":{"number":"HY601","direction":"departure","scheduled_at":"%sT%s"},`+
				`"passengers":[{"first_name":"Aziza","last_name":"Karimova","date_of_birth":"1990-04-01","passport_number":"FA1234567",`+
				`"nationality":"UZ","email":"aziza@example.com","phone":"+998901234567"}],"partner_reference":"BENCH-PRICED"}`, ft, sl.date, sl.date, sl.hhmm)
			t.Method, t.URL, t.Body = http.MethodPost, url, b.Bytes()
			t.Header = http.Header{
				"Authorization":   {auth},
				"Content-Type":    {"application/json"},
				"Idempotency-Key": {fmt.Sprintf("bench-priced-%x-%d", run, n)},
			}
			return nil
		}
	}}
}
