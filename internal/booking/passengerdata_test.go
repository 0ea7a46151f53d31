package booking_test

import (
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/booking"
	"github.com/skygate/skygate/internal/sqlite/sqlitetest"
	"github.com/skygate/skygate/internal/storetest"
)

// TestWorkerErasesPassengerData: the worker removes a booking's personal data once the
// retention (90 days by default) has passed since the end of its service date, a UTC
// day, and not a microsecond before; the names, the history and the pass stay.
func TestWorkerErasesPassengerData(t *testing.T) {
	t.Parallel()
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			b := setupStore(t, e.open(t))
			r := fullRequest() // service date 2025-06-03, which ends at 2025-06-04T00:00Z
			bk := b.MustCreate(t, r)
			later := b.MustCreate(t, func() map[string]any { r := fullRequest(); r["service_date"] = "2025-06-04"; return r }())
			b.MustRun(t) // issues both

			end := time.Date(2025, 6, 4, 0, 0, 0, 0, time.UTC)
			b.clock.Advance(end.Add(skygate.DefaultPassengerDataRetention).Sub(b.clock.Now()) - time.Microsecond)
			if st := b.MustRun(t); st.Erased != 0 {
				t.Fatalf("erased before the retention passed: %+v", st)
			}
			b.clock.Advance(time.Microsecond)
			if st := b.MustRun(t); st.Erased != 1 || st.Sealed != 0 {
				t.Fatalf("RunOnce = %+v, want one booking erased and nothing to seal", st)
			}

			got, err := b.svc.Get(t.Context(), b.account, bk.ID)
			storetest.MustNoError(t, err, "Get")
			if want := skygate.PassengerNames(bk.Passengers); len(got.Passengers) != 1 || got.Passengers[0] != want[0] {
				t.Errorf("passengers after the retention: %+v, want %+v", got.Passengers, want)
			}
			if got.PersonalDataRemovedAt == nil || !got.PersonalDataRemovedAt.Equal(b.clock.Now()) {
				t.Errorf("PersonalDataRemovedAt = %v, want %v", got.PersonalDataRemovedAt, b.clock.Now())
			}
			if len(got.StatusHistory) != 3 || got.Status != skygate.BookingExpired {
				t.Errorf("history after the retention: %+v", got.StatusHistory)
			}
			pass, err := b.svc.Pass(t.Context(), b.account, bk.ID)
			storetest.MustNoError(t, err, "Pass")
			if pass.Status != skygate.PassExpired || pass.Passengers[0].HasPersonalData() {
				t.Errorf("pass after the retention: %+v", pass)
			}
			kept, err := b.svc.Get(t.Context(), b.account, later.ID)
			storetest.MustNoError(t, err, "Get")
			if !kept.Passengers[0].HasPersonalData() || kept.PersonalDataRemovedAt != nil {
				t.Errorf("a booking of the next day lost its data: %+v", kept)
			}
			if st := b.MustRun(t); st.Erased != 0 {
				t.Fatalf("a second run erased again: %+v", st)
			}
		})
	}
}

// TestWorkerRetentionConfigured: Config.PassengerDataRetention replaces the default.
func TestWorkerRetentionConfigured(t *testing.T) {
	t.Parallel()
	s := sqlitetest.MustOpen(t)
	c := &clock{t: Start}
	svc := booking.New(booking.Config{Store: s, FastTracks: fastTracks{}, Clock: c.Now, PassengerDataRetention: 36 * time.Hour})
	b := &bundle{store: s, svc: svc, worker: booking.NewWorker(svc, nil), clock: c, account: storetest.MustCreateAccount(t, s).ID}
	bk := b.MustCreate(t, fullRequest())
	// 2025-06-03 ends at 2025-06-04T00:00Z; 36 hours later is 2025-06-05T12:00Z.
	c.Advance(time.Date(2025, 6, 5, 12, 0, 0, 0, time.UTC).Sub(Start) - time.Second)
	if st := b.MustRun(t); st.Erased != 0 {
		t.Fatalf("erased before 36 hours: %+v", st)
	}
	c.Advance(time.Second)
	if st := b.MustRun(t); st.Erased != 1 {
		t.Fatalf("RunOnce = %+v, want the booking erased", st)
	}
	got, err := svc.Get(t.Context(), b.account, bk.ID)
	storetest.MustNoError(t, err, "Get")
	if got.Passengers[0].HasPersonalData() {
		t.Fatalf("passengers after the retention: %+v", got.Passengers)
	}
}
