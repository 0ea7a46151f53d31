package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// RunLegacyOrderingTest writes two events of one booking and their pending
// deliveries as the release before delivery ordering did (without ordering keys),
// migrates, and checks that they read back unordered: the events with no ordering
// key, and both deliveries claimed at once, as they would have been before. The
// engine's store must be migrated up to the last migration before ordering.
func RunLegacyOrderingTest(t *testing.T, e LegacyEngine) {
	s := e.Store
	acc := MustCreateAccount(t, s)
	sub := MustCreateWebhook(t, s, acc.ID)
	exec := func(query string, args ...any) { t.Helper(); e.Exec(t, query, args...) }
	created := e.Time(Stored(T0))
	var events, deliveries []string
	for _, status := range []string{"Pending", "Issued"} {
		id, delivery := NewID(), NewID()
		data := `{"booking_id":"b1","status":"` + status + `"}`
		exec(`INSERT INTO events (id, account_id, type, data, created_at) VALUES (?, ?, ?, ?, ?)`,
			id, acc.ID, skygate.EventBookingStatusChanged, data, created)
		exec(`INSERT INTO webhook_deliveries (id, subscription_id, account_id, event_id, event_type, body, status,
			attempts, next_attempt_at, last_status_code, last_error, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, 0, '', ?, ?)`,
			delivery, sub.ID, acc.ID, id, skygate.EventBookingStatusChanged, `{"id":"`+id+`"}`, created, created, created)
		events, deliveries = append(events, id), append(deliveries, delivery)
	}

	MustNoError(t, e.Migrate(), "migrate")

	for _, id := range events {
		got, err := s.Event(t.Context(), acc.ID, id)
		MustNoError(t, err, "Event")
		wantEqual(t, "ordering key of a legacy event", got.OrderingKey, "")
	}
	jobs := MustClaim(t, s, At(time.Hour), At(2*time.Hour), 10)
	var claimed []string
	for _, j := range jobs {
		claimed = append(claimed, j.Delivery.ID)
	}
	slices.Sort(claimed)
	slices.Sort(deliveries)
	wantEqual(t, "legacy deliveries claimed together", claimed, deliveries)
}
