package booking_test

import (
	"bytes"
	"encoding/json"
	"sync"
	"syscall"
	"testing"
	"time"
	_ "time/tzdata" // Europe/London on hosts without a zoneinfo database

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/booking"
	"github.com/skygate/skygate/internal/idempotency"
	"github.com/skygate/skygate/internal/postgres/pgtest"
	"github.com/skygate/skygate/internal/sqlite/sqlitetest"
	"github.com/skygate/skygate/internal/storetest"
)

// Fast-tracks of the fake catalog.
var (
	ftAll      = "11111111-1111-4111-8111-111111111111" // every BookingInfo, hub at UTC+5
	ftName     = "22222222-2222-4222-8222-222222222222" // Name only, UTC
	ftInactive = "33333333-3333-4333-8333-333333333333"
	ftNothing  = "44444444-4444-4444-8444-444444444444" // requires nothing
	ftNotice   = "55555555-5555-4555-8555-555555555555" // Name only, 24 hours' notice, hub at UTC+5
	// ftLondon: Name only, 24 hours' notice, hub in Europe/London, open 06:00-21:00 but
	// closed on Tuesdays and open all day on Sundays, 3 places a slot.
	ftLondon = "66666666-6666-4666-8666-666666666666"
)

// london is ftLondon's zone, which has summer time.
var london = mustLoad("Europe/London")

func mustLoad(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

// hubZone is the zone of ftAll's hub (Tashkent, without tzdata).
var hubZone = time.FixedZone("UTC+5", 5*3600)

// fastTracks is a fake catalog implementing booking.FastTracks.
type fastTracks struct{}

func (fastTracks) FastTrackInfo(id string) ([]string, bool, bool) {
	switch id {
	case ftAll:
		infos := make([]string, len(skygate.BookingInfos))
		for i, v := range skygate.BookingInfos {
			infos[i] = string(v)
		}
		return append(infos, "SomethingNew"), true, true
	case ftName, ftNotice, ftLondon:
		return []string{string(skygate.InfoName)}, true, true
	case ftInactive:
		return []string{string(skygate.InfoName)}, false, true
	case ftNothing:
		return []string{}, true, true
	}
	return nil, false, false
}

func (fastTracks) FastTrackZone(id string) (*time.Location, bool) {
	switch id {
	case ftAll, ftNotice:
		return hubZone, true
	case ftLondon:
		return london, true
	}
	return nil, false
}

func (fastTracks) FastTrackNotice(id string) (time.Duration, bool) {
	return 24 * time.Hour, id == ftNotice || id == ftLondon
}

func (fastTracks) FastTrackCapacity(id string) (int, bool) {
	if id == ftLondon {
		return 3, true
	}
	_, _, ok := fastTracks{}.FastTrackInfo(id)
	return 1000, ok
}

func (fastTracks) FastTrackOpenHours(id string, day time.Weekday) ([][2]int, bool) {
	switch {
	case id != ftLondon:
		_, _, ok := fastTracks{}.FastTrackInfo(id)
		return [][2]int{{0, 1440}}, ok
	case day == time.Tuesday:
		return nil, true
	case day == time.Sunday:
		return [][2]int{{0, 1440}}, true
	}
	return [][2]int{{360, 1260}}, true
}

func (fastTracks) FastTrackCancellation(id string) ([]skygate.CancellationRule, bool) {
	_, _, ok := fastTracks{}.FastTrackInfo(id)
	return []skygate.CancellationRule{{HoursBefore: 24, RefundPercent: 100}, {HoursBefore: 2, RefundPercent: 50}}, ok
}

// clock is a settable skygate.Clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) Advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// Start is the tests' initial time: 20:00 UTC on 1 June 2025, already 2 June at the
// UTC+5 hub.
var Start = time.Date(2025, 6, 1, 20, 0, 0, 0, time.UTC)

// bundle is what setup gives a test.
type bundle struct {
	store   skygate.Store
	svc     *booking.Service
	worker  *booking.Worker
	clock   *clock
	account string
	other   string
}

// setup returns a service over a fresh SQLite store with two accounts.
func setup(tb testing.TB) *bundle {
	tb.Helper()
	return setupStore(tb, sqlitetest.MustOpen(tb))
}

func setupStore(tb testing.TB, s skygate.Store) *bundle {
	tb.Helper()
	c := &clock{t: Start}
	svc := booking.New(booking.Config{Store: s, FastTracks: fastTracks{}, Clock: c.Now, Prices: s, Quotes: s})
	return &bundle{
		store: s, svc: svc, worker: booking.NewWorker(svc, nil), clock: c,
		account: storetest.MustCreateAccount(tb, s).ID,
		other:   storetest.MustCreateAccount(tb, s).ID,
	}
}

// engines are the stores tests may run on; PostgreSQL is skipped without
// SKYGATE_TEST_DATABASE_URL.
var engines = []struct {
	name string
	open func(tb testing.TB) skygate.Store
}{
	{"sqlite", func(tb testing.TB) skygate.Store { return sqlitetest.MustOpen(tb) }},
	{"postgres", func(tb testing.TB) skygate.Store { return pgtest.MustOpen(tb) }},
}

// request returns a valid create request for ftName; mods change it.
func request(mods ...func(r map[string]any)) map[string]any {
	r := map[string]any{
		"fast_track_id": ftName,
		"service_date":  "2025-06-03",
		"flight":        map[string]any{"number": "HY601", "direction": "departure"},
		"passengers": []any{
			map[string]any{"first_name": "Ada", "last_name": "Lovelace"},
		},
		"partner_reference": "PNR-42",
	}
	for _, m := range mods {
		m(r)
	}
	return r
}

// fullRequest is a valid request for ftAll, which requires every field.
func fullRequest() map[string]any {
	return request(func(r map[string]any) {
		r["fast_track_id"] = ftAll
		r["passengers"] = []any{map[string]any{
			"first_name": "Ada", "last_name": "Lovelace", "date_of_birth": "1990-12-10",
			"passport_number": "FA1234567", "nationality": "UZ", "email": "ada@example.com",
			"phone": "+998901234567",
		}}
	})
}

// passenger returns the first passenger of r for changing.
func passenger(r map[string]any) map[string]any { return r["passengers"].([]any)[0].(map[string]any) }

func mustJSON(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// commandOf is the command the HTTP layer makes of a create request's body: the
// request decoded strictly, and the body's fingerprint.
func commandOf(tb testing.TB, accountID, clientID, key string, body []byte) booking.CreateCommand {
	tb.Helper()
	cmd := booking.CreateCommand{AccountID: accountID, ClientID: clientID, IdempotencyKey: key}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cmd.Request); err != nil {
		tb.Fatalf("decode %s: %v", body, err)
	}
	var err error
	if cmd.Fingerprint, err = idempotency.Fingerprint(body); err != nil {
		tb.Fatalf("fingerprint %s: %v", body, err)
	}
	return cmd
}

// create sends a create request's body for the account's client under key.
func (b *bundle) create(tb testing.TB, accountID, clientID, key string, body []byte) (*skygate.Booking, bool, error) {
	tb.Helper()
	return b.svc.Create(tb.Context(), commandOf(tb, accountID, clientID, key, body))
}

// MustCreate creates a booking from r with a new key and returns it.
func (b *bundle) MustCreate(tb testing.TB, r map[string]any) *skygate.Booking {
	tb.Helper()
	out, replayed, err := b.create(tb, b.account, "client-1", "key-"+storetest.NewID(), mustJSON(tb, r))
	if err != nil || replayed {
		tb.Fatalf("Create: %v (replayed %v)", err, replayed)
	}
	return out
}

// MustRun runs the worker once.
func (b *bundle) MustRun(tb testing.TB) booking.RunStats {
	tb.Helper()
	st, err := b.worker.RunOnce(tb.Context())
	if err != nil {
		tb.Fatalf("RunOnce: %v", err)
	}
	return st
}

// eventsOf returns type and status of the booking's events, oldest first.
func (b *bundle) eventsOf(tb testing.TB, bookingID string) []string {
	tb.Helper()
	events, err := b.store.EventsAfter(tb.Context(), 0, 0)
	storetest.MustNoError(tb, err, "EventsAfter")
	var out []string
	for _, e := range events {
		var d struct {
			BookingID string  `json:"booking_id"`
			Status    string  `json:"status"`
			Previous  *string `json:"previous_status"`
		}
		storetest.MustNoError(tb, json.Unmarshal(e.Data, &d), "decode event")
		if d.BookingID != bookingID {
			continue
		}
		prev := "null"
		if d.Previous != nil {
			prev = *d.Previous
		}
		out = append(out, e.Type+" "+prev+"→"+d.Status)
	}
	return out
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
