package storetest

import (
	"database/sql"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// LegacyEngine is what RunLegacyDataTest and RunLegacyOrderingTest need of an engine:
// a store whose schema is migrated up to the last migration before the one under
// test, the database under it, how its statements number parameters and store times,
// and the rest of its migrations.
type LegacyEngine struct {
	Store   skygate.Store
	DB      *sql.DB
	Dollar  bool                // $1, $2 … (PostgreSQL) instead of ?
	Time    func(time.Time) any // a time column's stored value
	Migrate func() error
}

// Exec runs query, written with ? placeholders, on the engine's database.
func (e LegacyEngine) Exec(tb testing.TB, query string, args ...any) {
	tb.Helper()
	if e.Dollar {
		for i := 1; strings.Contains(query, "?"); i++ {
			query = strings.Replace(query, "?", "$"+strconv.Itoa(i), 1)
		}
	}
	_, err := e.DB.ExecContext(tb.Context(), query, args...)
	MustNoError(tb, err, query)
}

// legacyBookingJSON is a booking's JSON as the release before sealing wrote it:
// without personal_data_removed_at.
func legacyBookingJSON(tb testing.TB, b *skygate.Booking) string {
	tb.Helper()
	j, err := json.Marshal(b)
	MustNoError(tb, err, "Marshal")
	return strings.Replace(string(j), `,"personal_data_removed_at":null`, "", 1)
}

// RunLegacyDataTest writes rows as the release before sealing did (a booking with its
// passengers whole in clear, its key's record, its creation event, a webhook
// subscription and that event's delivery to it), migrates, and checks that the
// migration took the personal data out of the event and the delivery, that the rows
// written in clear read as before, that SealLegacyData seals them (after it no value
// is left in clear, and they still read as before) and that the sealed booking's data
// is erased like any other.
func RunLegacyDataTest(t *testing.T, e LegacyEngine) {
	s := e.Store
	acc := MustCreateAccount(t, s)
	b := NewBooking(acc.ID, WithAllPersonalData, WithServiceDate("2025-03-19"), WithBookingCreated(Stored(T0)))
	b.PartnerReference = `<ref> "quoted" & \back`
	b.Livemode = true // what the migration gives a row of a live application
	names := b.Clone()
	names.Passengers = skygate.PassengerNames(b.Passengers)
	rec := NewRecord(b, "legacy-key", "legacy-fingerprint")
	rec.Body = []byte(legacyBookingJSON(t, b))
	event := &skygate.Event{ID: NewID(), Type: skygate.EventBookingStatusChanged, CreatedAt: b.CreatedAt, AccountID: acc.ID,
		Data: json.RawMessage(`{"booking_id":"` + b.ID + `","status":"Pending","previous_status":null,"booking":` + legacyBookingJSON(t, b) + `}`)}
	envelope, err := json.Marshal(event)
	MustNoError(t, err, "encode the envelope")

	exec := func(query string, args ...any) { t.Helper(); e.Exec(t, query, args...) }
	history, err := json.Marshal(b.StatusHistory)
	MustNoError(t, err, "history")
	flight, err := json.Marshal(b.Flight)
	MustNoError(t, err, "flight")
	passengers, err := json.Marshal(b.Passengers)
	MustNoError(t, err, "passengers")
	created := e.Time(b.CreatedAt)
	exec(`INSERT INTO bookings (id, account_id, client_id, status, fast_track_id, service_date, flight,
		passengers, partner_reference, status_history, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		b.ID, acc.ID, b.ClientID, string(b.Status), b.FastTrackID, b.ServiceDate, string(flight),
		string(passengers), b.PartnerReference, string(history), created, created)
	exec(`INSERT INTO idempotency_records (account_id, operation, idem_key, fingerprint, status_code, resource_id,
		body, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		acc.ID, rec.Operation, rec.Key, rec.Fingerprint, rec.StatusCode, rec.ResourceID, rec.Body,
		created, e.Time(Stored(rec.ExpiresAt)))
	// The subscription as that release wrote it too: later migrations add columns that
	// today's CreateWebhook writes.
	subID := NewID()
	exec(`INSERT INTO webhook_subscriptions (id, account_id, url, active, secret, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, subID, acc.ID, "https://hooks.example.com/legacy", true, []byte("sealed-legacy"), created, created)
	exec(`INSERT INTO events (id, account_id, type, data, created_at) VALUES (?, ?, ?, ?, ?)`,
		event.ID, acc.ID, event.Type, string(event.Data), created)
	exec(`INSERT INTO webhook_deliveries (id, subscription_id, account_id, event_id, event_type, body, status,
		attempts, next_attempt_at, last_status_code, last_error, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, 0, '', ?, ?)`,
		NewID(), subID, acc.ID, event.ID, event.Type, string(envelope), created, created, created)
	secrets := PersonalValues(b)
	MustHoldInClear(t, e.DB, "bookings", secrets[0])

	MustNoError(t, e.Migrate(), "migrate")

	// The event and its delivery lost the personal data and kept the rest.
	MustHoldNoneInClear(t, e.DB, []string{"events", "webhook_deliveries"}, secrets)
	wantData := `{"booking_id":"` + b.ID + `","status":"Pending","previous_status":null,"booking":` + legacyBookingJSON(t, names) + `}`
	stored, err := s.Event(t.Context(), acc.ID, event.ID)
	MustNoError(t, err, "Event")
	wantSameJSON(t, "event data", stored.Data, []byte(wantData))
	jobs := MustClaim(t, s, At(time.Hour), At(2*time.Hour), 10)
	wantEqual(t, "deliveries", len(jobs), 1)
	var delivered skygate.Event
	MustNoError(t, json.Unmarshal(jobs[0].Body, &delivered), "decode the delivery's body")
	wantSameJSON(t, "delivered data", delivered.Data, []byte(wantData))
	wantEqual(t, "delivered id", delivered.ID, event.ID)

	// Written in clear, read as written.
	checkReads := func(when string) {
		t.Helper()
		wantEqual(t, when+": booking", MustBooking(t, s, acc.ID, b.ID), b)
		got, err := s.IdempotencyRecord(t.Context(), acc.ID, rec.Operation, rec.Key, At(time.Minute))
		MustNoError(t, err, when+": IdempotencyRecord")
		wantEqual(t, when+": record", got, rec)
	}
	checkReads("before sealing")

	n, err := s.SealLegacyData(t.Context(), 0)
	MustNoError(t, err, "SealLegacyData")
	wantEqual(t, "rows sealed", n, 2)
	MustHoldNoneInClear(t, e.DB, BookingTables, secrets)
	MustHoldInClear(t, e.DB, "bookings", "Karimova")
	checkReads("after sealing")
	n, err = s.SealLegacyData(t.Context(), 0)
	MustNoError(t, err, "SealLegacyData again")
	wantEqual(t, "rows sealed again", n, 0)

	n, err = s.ErasePassengerData(t.Context(), "2025-03-20", At(time.Hour), 0)
	MustNoError(t, err, "ErasePassengerData")
	wantEqual(t, "erased", n, 1)
	wantEqual(t, "erased passengers", MustBooking(t, s, acc.ID, b.ID).Passengers, names.Passengers)
}

// wantSameJSON fails unless got and want are the same JSON value.
func wantSameJSON(tb testing.TB, what string, got, want []byte) {
	tb.Helper()
	var g, w any
	MustNoError(tb, json.Unmarshal(got, &g), what+": decode "+string(got))
	MustNoError(tb, json.Unmarshal(want, &w), what+": decode the expected value")
	if !reflect.DeepEqual(g, w) {
		tb.Fatalf("%s:\n got  %s\n want %s", what, got, want)
	}
}
