package booking_test

import (
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/booking"
	"github.com/skygate/skygate/internal/storetest"
)

func TestCreate(t *testing.T) {
	t.Parallel()
	b := setup(t)
	res, err := b.svc.Create(t.Context(), b.account, "client-1", "key-1", mustJSON(t, fullRequest()))
	storetest.MustNoError(t, err, "Create")
	if res.StatusCode != 202 || res.Reused || !skygate.IsID(res.BookingID) {
		t.Fatalf("Create = %+v", res)
	}
	got, err := b.svc.Get(t.Context(), b.account, res.BookingID)
	storetest.MustNoError(t, err, "Get")
	if string(mustJSON(t, got)) != string(res.Body) {
		t.Fatalf("body\n %s\nis not the stored booking\n %s", res.Body, mustJSON(t, got))
	}
	want := skygate.Passenger{FirstName: "Ada", LastName: "Lovelace", DateOfBirth: "1990-12-10",
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
	first, err := b.svc.Create(ctx, b.account, "c", "key", []byte(body))
	storetest.MustNoError(t, err, "Create")

	// Same document, other key order and layout: the stored answer.
	same := "{\n  \"passengers\": [ {\"last_name\":\"Lovelace\", \"first_name\":\"Ada\"} ],\n" +
		`  "flight": {"direction":"departure","number":"HY601"}, "service_date": "2025-06-10",` +
		` "fast_track_id": "` + ftName + `"}`
	b.clock.Advance(time.Hour)
	again, err := b.svc.Create(ctx, b.account, "c", "key", []byte(same))
	storetest.MustNoError(t, err, "Create again")
	if !again.Reused || string(again.Body) != string(first.Body) || again.BookingID != first.BookingID || again.StatusCode != 202 {
		t.Fatalf("replay = %+v, want the first answer %+v", again, first)
	}

	// A replay writes no event: one creation event for the booking.
	wantEvents(t, b.eventsOf(t, first.BookingID), "booking.status.changed null→Pending")

	// Same key, another body.
	_, err = b.svc.Create(ctx, b.account, "c", "key", []byte(strings.Replace(body, "Ada", "Eve", 1)))
	storetest.WantCode(t, err, skygate.CodeIdempotencyConflict)
	// Even an invalid body conflicts rather than being validated.
	_, err = b.svc.Create(ctx, b.account, "c", "key", []byte(`{"unknown":1}`))
	storetest.WantCode(t, err, skygate.CodeIdempotencyConflict)

	// Keys are per account.
	other, err := b.svc.Create(ctx, b.other, "c", "key", []byte(body))
	storetest.MustNoError(t, err, "Create in another account")
	if other.Reused || other.BookingID == first.BookingID {
		t.Fatalf("another account's key was reused: %+v", other)
	}

	// After 72 hours the key is new again.
	b.clock.Advance(booking.KeyLifetime - time.Hour)
	later, err := b.svc.Create(ctx, b.account, "c", "key", []byte(strings.Replace(body, "Ada", "Eve", 1)))
	storetest.MustNoError(t, err, "Create after the key expired")
	if later.Reused || later.BookingID == first.BookingID {
		t.Fatalf("an expired key was reused: %+v", later)
	}
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
	body := mustJSON(t, request())
	const n = 20
	results := make([]*booking.CreateResult, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { results[i], errs[i] = b.svc.Create(t.Context(), b.account, "c", "same", body) })
	}
	wg.Wait()
	created := 0
	for i := range n {
		storetest.MustNoError(t, errs[i], "Create")
		if !results[i].Reused {
			created++
		}
		if results[i].BookingID != results[0].BookingID {
			t.Fatalf("two bookings: %s and %s", results[i].BookingID, results[0].BookingID)
		}
	}
	if created != 1 {
		t.Fatalf("%d requests created, want 1", created)
	}
	wantEvents(t, b.eventsOf(t, results[0].BookingID), "booking.status.changed null→Pending")
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
			first, err := b.svc.Create(t.Context(), b.account, "c", "late", body)
			storetest.MustNoError(t, err, "Create")
			b.clock.Advance(48 * time.Hour) // 2025-06-03 20:00 UTC: the 2nd is past everywhere
			_, err = b.svc.Create(t.Context(), b.account, "c", "fresh", body)
			storetest.WantCode(t, err, skygate.CodeValidation)
			again, err := b.svc.Create(t.Context(), b.account, "c", "late", body)
			storetest.MustNoError(t, err, "Create again")
			if !again.Reused || again.BookingID != first.BookingID || string(again.Body) != string(first.Body) {
				t.Fatalf("replay = %+v, want the first answer", again)
			}
		})
	}
}

func TestRejectedRequestKeepsKeyFree(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, err := b.svc.Create(t.Context(), b.account, "c", "k", mustJSON(t, request(func(r map[string]any) { r["service_date"] = "2020-01-01" })))
	storetest.WantCode(t, err, skygate.CodeValidation)
	res, err := b.svc.Create(t.Context(), b.account, "c", "k", mustJSON(t, request()))
	storetest.MustNoError(t, err, "Create after a rejected request")
	if res.Reused {
		t.Fatal("a rejected request's key was remembered")
	}
}

func TestValidateKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		key string
		ok  bool
	}{
		{"a", true},
		{"order 42/retry #1 ~!", true},
		{strings.Repeat("k", 255), true},
		{"", false},
		{strings.Repeat("k", 256), false},
		{"tab\there", false},
		{"ключ", false},
		{"nul\x00", false},
		{"del\x7f", false},
	}
	for _, tt := range tests {
		err := booking.ValidateKey(tt.key)
		if (err == nil) != tt.ok || (err != nil && !skygate.IsCode(err, skygate.CodeBadRequest)) {
			t.Errorf("ValidateKey(%q) = %v, want ok=%v", tt.key, err, tt.ok)
		}
	}
}

func TestFingerprint(t *testing.T) {
	t.Parallel()
	fp := func(s string) string {
		sum, _, err := booking.Fingerprint([]byte(s))
		if err != nil {
			t.Fatalf("Fingerprint(%s): %v", s, err)
		}
		return string(sum)
	}
	base := fp(`{"a":1,"b":{"c":"x","d":[1,2]}}`)
	for _, same := range []string{
		`{"b":{"d":[1,2],"c":"x"},"a":1}`,
		" {\n\t\"a\" : 1 , \"b\":{\"c\":\"\\u0078\",\"d\":[ 1,2 ]}}\n",
	} {
		if fp(same) != base {
			t.Errorf("%s has another fingerprint", same)
		}
	}
	for _, other := range []string{
		`{"a":1,"b":{"c":"x","d":[2,1]}}`,
		`{"a":1.0,"b":{"c":"x","d":[1,2]}}`, // numbers count as written
		`{"a":"1","b":{"c":"x","d":[1,2]}}`,
		`{"a":1,"b":{"c":"x","d":[1,2]},"e":null}`,
	} {
		if fp(other) == base {
			t.Errorf("%s has the same fingerprint", other)
		}
	}
	for _, bad := range []string{``, `{`, `{"a":1} {"b":2}`, `{"a":1}x`, `nul`} {
		if _, _, err := booking.Fingerprint([]byte(bad)); !skygate.IsCode(err, skygate.CodeBadRequest) {
			t.Errorf("Fingerprint(%q) error = %v, want BadRequest", bad, err)
		}
	}
}

func TestCreateBadRequest(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tests := []struct {
		name   string
		key    string
		body   string
		fields []string
	}{
		{"no key", "", `{}`, []string{"Idempotency-Key"}},
		{"malformed", "k", `{"fast_track_id":`, nil},
		{"two values", "k", `{} {}`, nil},
		{"array", "k", `[]`, nil},
		{"unknown fields", "k", string(mustJSON(t, request(func(r map[string]any) {
			r["extra"] = 1
			r["flight"].(map[string]any)["gate"] = "A1"
			passenger(r)["middle_name"] = "B"
		}))), []string{"extra", "flight.gate", "passengers[0].middle_name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := b.svc.Create(t.Context(), b.account, "c", tt.key, []byte(tt.body))
			storetest.WantCode(t, err, skygate.CodeBadRequest)
			if tt.fields != nil {
				if got := fieldsOf(err); !reflect.DeepEqual(got, tt.fields) {
					t.Fatalf("fields = %v, want %v", got, tt.fields)
				}
			}
		})
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

// BenchmarkFingerprint measures the canonical hash of a full create request.
func BenchmarkFingerprint(b *testing.B) {
	body := mustJSON(b, fullRequest())
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := booking.Fingerprint(body); err != nil {
			b.Fatal(err)
		}
	}
}
