package booking_test

import (
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/idempotency"
	"github.com/skygate/skygate/internal/storetest"
)

func TestCreate(t *testing.T) {
	t.Parallel()
	b := setup(t)
	created, replayed, err := b.create(t, b.account, "client-1", "key-1", mustJSON(t, fullRequest()))
	storetest.MustNoError(t, err, "Create")
	if replayed || !skygate.IsID(created.ID) {
		t.Fatalf("Create = %+v, replayed %v", created, replayed)
	}
	got, err := b.svc.Get(t.Context(), b.account, created.ID)
	storetest.MustNoError(t, err, "Get")
	if string(mustJSON(t, got)) != string(mustJSON(t, created)) {
		t.Fatalf("answer\n %s\nis not the stored booking\n %s", mustJSON(t, created), mustJSON(t, got))
	}
	want := skygate.Passenger{FirstName: "Ada", LastName: "Lovelace", Type: skygate.PassengerAdult, DateOfBirth: "1990-12-10",
		PassportNumber: "FA1234567", Nationality: "UZ", Email: "ada@example.com", Phone: "+998901234567"}
	if got.Status != skygate.BookingPending || got.ClientID != "client-1" || got.AccountID != b.account ||
		got.ConfirmBefore != nil || got.Pass != nil || !reflect.DeepEqual(got.Passengers, []skygate.Passenger{want}) ||
		got.Flight != (skygate.Flight{Number: "HY601", Direction: "departure"}) || got.PartnerReference != "PNR-42" ||
		got.ServiceDate != "2025-06-03" || !got.CreatedAt.Equal(Start) ||
		!reflect.DeepEqual(got.StatusHistory, []skygate.StatusChange{{Status: "Pending", At: Start}}) {
		t.Fatalf("stored booking = %+v", got)
	}
	// The creation's event, written with the booking.
	wantEvents(t, b.eventsOf(t, got.ID), "booking.status.changed null→Pending")
}

func TestCreateIdempotency(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	body := `{"fast_track_id":"` + ftName + `","service_date":"2025-06-10","flight":{"number":"HY601","direction":"departure"},"passengers":[{"first_name":"Ada","last_name":"Lovelace"}]}`
	first, _, err := b.create(t, b.account, "c", "key", []byte(body))
	storetest.MustNoError(t, err, "Create")

	// Same document, other key order and layout: the stored answer.
	same := "{\n  \"passengers\": [ {\"last_name\":\"Lovelace\", \"first_name\":\"Ada\"} ],\n" +
		`  "flight": {"direction":"departure","number":"HY601"}, "service_date": "2025-06-10",` +
		` "fast_track_id": "` + ftName + `"}`
	b.clock.Advance(time.Hour)
	again, replayed, err := b.create(t, b.account, "c", "key", []byte(same))
	storetest.MustNoError(t, err, "Create again")
	if !replayed || string(mustJSON(t, again)) != string(mustJSON(t, first)) || again.ID != first.ID {
		t.Fatalf("replay = %+v (replayed %v), want the first answer %+v", again, replayed, first)
	}

	// A replay writes no event: one creation event for the booking.
	wantEvents(t, b.eventsOf(t, first.ID), "booking.status.changed null→Pending")

	// Same key, another body.
	_, _, err = b.create(t, b.account, "c", "key", []byte(strings.Replace(body, "Ada", "Eve", 1)))
	storetest.WantCode(t, err, skygate.CodeIdempotencyConflict)
	// Even an invalid body conflicts rather than being validated: one that fails
	// validation, and one the HTTP layer could not decode, which it replays.
	_, _, err = b.create(t, b.account, "c", "key", []byte(`{"passengers":[]}`))
	storetest.WantCode(t, err, skygate.CodeIdempotencyConflict)
	unknown, err := idempotency.Fingerprint([]byte(`{"unknown":1}`))
	storetest.MustNoError(t, err, "Fingerprint")
	_, err = b.svc.Replay(ctx, b.account, "key", unknown)
	storetest.WantCode(t, err, skygate.CodeIdempotencyConflict)
	// Replay answers the known key as Create does, and nothing for an unknown one.
	fp, err := idempotency.Fingerprint([]byte(same))
	storetest.MustNoError(t, err, "Fingerprint")
	replay, err := b.svc.Replay(ctx, b.account, "key", fp)
	storetest.MustNoError(t, err, "Replay")
	if string(mustJSON(t, replay)) != string(mustJSON(t, first)) {
		t.Fatalf("Replay = %s, want the first answer %s", mustJSON(t, replay), mustJSON(t, first))
	}
	_, err = b.svc.Replay(ctx, b.account, "other-key", fp)
	storetest.WantCode(t, err, skygate.CodeNotFound)

	// Keys are per account.
	other, replayed, err := b.create(t, b.other, "c", "key", []byte(body))
	storetest.MustNoError(t, err, "Create in another account")
	if replayed || other.ID == first.ID {
		t.Fatalf("another account's key was reused: %+v", other)
	}

	// After 72 hours the key is new again.
	b.clock.Advance(idempotency.Lifetime - time.Hour)
	later, replayed, err := b.create(t, b.account, "c", "key", []byte(strings.Replace(body, "Ada", "Eve", 1)))
	storetest.MustNoError(t, err, "Create after the key expired")
	if replayed || later.ID == first.ID {
		t.Fatalf("an expired key was reused: %+v", later)
	}
}

// TestCreateWithoutFingerprint: a command without a fingerprint (a Go caller's) is
// identified by its request.
func TestCreateWithoutFingerprint(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cmd := commandOf(t, b.account, "c", "typed", mustJSON(t, request()))
	cmd.Fingerprint = nil
	first, replayed, err := b.svc.Create(t.Context(), cmd)
	storetest.MustNoError(t, err, "Create")
	again, replayedAgain, err := b.svc.Create(t.Context(), cmd)
	storetest.MustNoError(t, err, "Create again")
	if replayed || !replayedAgain || again.ID != first.ID {
		t.Fatalf("first %s (replayed %v), again %s (replayed %v)", first.ID, replayed, again.ID, replayedAgain)
	}
	cmd.PartnerReference = "other"
	_, _, err = b.svc.Create(t.Context(), cmd)
	storetest.WantCode(t, err, skygate.CodeIdempotencyConflict)
}

// TestCreateConcurrent sends one request 20 times at once, on each engine: one
// booking, 19 replays.
func TestCreateConcurrent(t *testing.T) {
	t.Parallel()
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			testCreateConcurrent(t, setupStore(t, e.open(t)))
		})
	}
}

func testCreateConcurrent(t *testing.T, b *bundle) {
	cmd := commandOf(t, b.account, "c", "same", mustJSON(t, request()))
	const n = 20
	results := make([]*skygate.Booking, n)
	replayed := make([]bool, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { results[i], replayed[i], errs[i] = b.svc.Create(t.Context(), cmd) })
	}
	wg.Wait()
	created := 0
	for i := range n {
		storetest.MustNoError(t, errs[i], "Create")
		if !replayed[i] {
			created++
		}
		if results[i].ID != results[0].ID {
			t.Fatalf("two bookings: %s and %s", results[i].ID, results[0].ID)
		}
	}
	if created != 1 {
		t.Fatalf("%d requests created, want 1", created)
	}
	wantEvents(t, b.eventsOf(t, results[0].ID), "booking.status.changed null→Pending")
}

// TestReplayOutlivesValidation: a known key gets its stored answer even when its body
// would no longer pass validation (the service date has passed since), on both
// engines: the key decides before the body is judged again.
func TestReplayOutlivesValidation(t *testing.T) {
	t.Parallel()
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			b := setupStore(t, e.open(t))
			body := mustJSON(t, request(func(r map[string]any) { r["service_date"] = "2025-06-02" }))
			first, _, err := b.create(t, b.account, "c", "late", body)
			storetest.MustNoError(t, err, "Create")
			b.clock.Advance(48 * time.Hour) // 2025-06-03 20:00 UTC: the 2nd is past everywhere
			_, _, err = b.create(t, b.account, "c", "fresh", body)
			storetest.WantCode(t, err, skygate.CodeValidation)
			again, replayed, err := b.create(t, b.account, "c", "late", body)
			storetest.MustNoError(t, err, "Create again")
			if !replayed || again.ID != first.ID || string(mustJSON(t, again)) != string(mustJSON(t, first)) {
				t.Fatalf("replay = %+v, want the first answer", again)
			}
		})
	}
}

func TestRejectedRequestKeepsKeyFree(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, _, err := b.create(t, b.account, "c", "k", mustJSON(t, request(func(r map[string]any) { r["service_date"] = "2020-01-01" })))
	storetest.WantCode(t, err, skygate.CodeValidation)
	_, replayed, err := b.create(t, b.account, "c", "k", mustJSON(t, request()))
	storetest.MustNoError(t, err, "Create after a rejected request")
	if replayed {
		t.Fatal("a rejected request's key was remembered")
	}
}

// TestCreateBadKey: the key is checked before anything else.
func TestCreateBadKey(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, key := range []string{"", strings.Repeat("k", 256), "ключ"} {
		_, _, err := b.create(t, b.account, "c", key, mustJSON(t, request()))
		storetest.WantCode(t, err, skygate.CodeBadRequest)
		if got := fieldsOf(err); !reflect.DeepEqual(got, []string{"Idempotency-Key"}) {
			t.Fatalf("fields = %v, want the key", got)
		}
		_, err = b.svc.Replay(t.Context(), b.account, key, []byte("fp"))
		storetest.WantCode(t, err, skygate.CodeBadRequest)
	}
}

// fieldsOf returns the field paths of a domain error.
func fieldsOf(err error) []string {
	var out []string
	if e, ok := err.(*skygate.Error); ok {
		for _, f := range e.Fields {
			out = append(out, f.Field)
		}
	}
	return out
}

// TestReplayOfEarlierRecord replays a record as earlier releases wrote it: the status
// beside the booking's JSON as the HTTP body, and the fingerprint of the request's
// body. The replay is that booking, encoded back to the same bytes.
func TestReplayOfEarlierRecord(t *testing.T) {
	t.Parallel()
	b := setup(t)
	body := mustJSON(t, request())
	stored := storetest.NewBooking(b.account, func(bk *skygate.Booking) {
		bk.CreatedAt, bk.UpdatedAt = Start, Start
		bk.StatusHistory = []skygate.StatusChange{{Status: skygate.BookingPending, At: Start}}
	})
	fp, err := idempotency.Fingerprint(body)
	storetest.MustNoError(t, err, "Fingerprint")
	rec := &skygate.IdempotencyRecord{AccountID: b.account, Operation: skygate.OperationCreateBooking, Key: "earlier",
		Fingerprint: fp, StatusCode: 202, ResourceID: stored.ID, Body: mustJSON(t, stored),
		CreatedAt: Start, ExpiresAt: Start.Add(idempotency.Lifetime)}
	if replay, err := b.store.CreateBooking(t.Context(), rec, stored, nil); err != nil || replay != nil {
		t.Fatalf("CreateBooking = %v, %v", replay, err)
	}
	got, replayed, err := b.create(t, b.account, "c", "earlier", body)
	storetest.MustNoError(t, err, "Create")
	if !replayed || got.ID != stored.ID || string(mustJSON(t, got)) != string(rec.Body) {
		t.Fatalf("replay %s (replayed %v), want the stored answer %s", mustJSON(t, got), replayed, rec.Body)
	}
}
