package booking_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/booking"
	"github.com/skygate/skygate/internal/postgres/pgtest"
	"github.com/skygate/skygate/internal/sqlite/sqlitetest"
	"github.com/skygate/skygate/internal/storetest"
)

// eventsNotifier is a store that reports the accounts of the events each commit wrote.
type eventsNotifier interface {
	skygate.Store
	OnEvents(func(accountIDs []string))
}

// TestEventsWakeOnlyOnCommit: every write that commits events calls OnEvents with
// their account, with or without a webhook subscription, on both engines; a write that
// fails or writes no event does not call it.
func TestEventsWakeOnlyOnCommit(t *testing.T) {
	t.Parallel()
	for _, e := range []struct {
		name string
		open func(testing.TB) eventsNotifier
	}{
		{"sqlite", func(tb testing.TB) eventsNotifier { return sqlitetest.MustOpen(tb) }},
		{"postgres", func(tb testing.TB) eventsNotifier { return pgtest.MustOpen(tb) }},
	} {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			s := e.open(t)
			var (
				mu    sync.Mutex
				calls [][]string
			)
			s.OnEvents(func(ids []string) {
				mu.Lock()
				defer mu.Unlock()
				calls = append(calls, slices.Clone(ids))
			})
			c := &clock{t: Start}
			svc := booking.New(booking.Config{Store: s, FastTracks: fastTracks{}, Clock: c.Now})
			b := &bundle{store: s, svc: svc, worker: booking.NewWorker(svc, nil), clock: c, account: storetest.MustCreateAccount(t, s).ID}
			step := func(what string, want [][]string, err error) {
				t.Helper()
				mu.Lock()
				got := calls
				calls = nil
				mu.Unlock()
				if !slices.EqualFunc(got, want, slices.Equal) {
					t.Errorf("%s: OnEvents calls %v, want %v (err %v)", what, got, want, err)
				}
			}
			mine := [][]string{{b.account}}
			created := b.MustCreate(t, request())
			step("create without a webhook", mine, nil)
			_, err := svc.Confirm(t.Context(), b.account, created.ID)
			step("confirm of a Pending booking (refused)", nil, err)
			_, err = b.worker.RunOnce(t.Context())
			step("issue", mine, err)
			_, err = svc.Cancel(t.Context(), "other-account", created.ID)
			step("cancel by another account (not found)", nil, err)
			storetest.MustCreateWebhook(t, s, b.account)
			step("webhook created (no event)", nil, nil)
			_, err = svc.Confirm(t.Context(), b.account, created.ID)
			step("confirm with a webhook", mine, err)
		})
	}
}
