package storetest

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

var bookingTests = []test{
	{"CreateAndGet", testBookingCreateAndGet},
	{"CreateUnknownAccount", testBookingUnknownAccount},
	{"CreateDuplicateID", testBookingDuplicateID},
	{"CreateEvents", testBookingCreateEvents},
	{"CreateAtomic", testBookingCreateAtomic},
	{"TransitionTable", testBookingTransitionTable},
	{"TransitionWritesEvents", testBookingTransitionEvents},
	{"ApplyErrorWritesNothing", testBookingApplyError},
	{"List", testBookingList},
	{"OtherAccountNotFound", testBookingOtherAccount},
	{"Admin", testBookingAdmin},
	{"IdempotencyReplay", testIdempotencyReplay},
	{"IdempotencyExpiredKeyReused", testIdempotencyExpired},
	{"IdempotencyPurge", testIdempotencyPurge},
	{"IdempotencyConcurrent", testIdempotencyConcurrent},
	{"ConcurrentTransitions", testConcurrentTransitions},
	{"ConcurrentConfirmCancel", testConcurrentConfirmCancel},
	{"Claims", testClaims},
	{"ConcurrentClaims", testConcurrentClaims},
	{"EventsConcurrentReader", testEventsConcurrentReader},
}

func testBookingCreateAndGet(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	created := time.Date(2025, 3, 14, 23, 59, 59, 999999999, time.FixedZone("UTC-7", -7*3600))
	b := MustCreateBooking(t, s, acc.ID, WithBookingCreated(created))
	MustCreateBooking(t, s, acc.ID) // another row, so the lookup must select

	got := MustBooking(t, s, acc.ID, b.ID)
	wantUTC(t, "Booking", got.CreatedAt, got.UpdatedAt, got.StatusHistory[0].At)
	wantEqual(t, "CreatedAt", got.CreatedAt, Stored(created))
	wantEqual(t, "Booking", got, b)
	if got.Pass != nil || got.ConfirmBefore != nil {
		t.Fatalf("a Pending booking has a pass or deadline: %+v", got)
	}
}

func testBookingUnknownAccount(t *testing.T, s skygate.Store) {
	b := NewBooking(NewID())
	_, err := s.CreateBooking(t.Context(), NewRecord(b, "k", "fp"), b, nil)
	WantCode(t, err, skygate.CodeNotFound)
}

func testBookingDuplicateID(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	first := MustCreateBooking(t, s, acc.ID)
	b := NewBooking(acc.ID, func(b *skygate.Booking) { b.ID = first.ID })
	_, err := s.CreateBooking(t.Context(), NewRecord(b, "other-key", "fp"), b, nil)
	WantCode(t, err, skygate.CodeConflict)
	// The transaction rolled back, so the key is still free.
	_, err = s.IdempotencyRecord(t.Context(), acc.ID, skygate.OperationCreateBooking, "other-key", T0)
	WantCode(t, err, skygate.CodeNotFound)
}

// testBookingTransitionTable drives a booking to every status and applies every
// trigger; the store must agree with skygate.Transition and record the history.
func testBookingTransitionTable(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	now := At(time.Hour)
	for _, from := range skygate.BookingStatuses {
		for _, tr := range skygate.Triggers {
			t.Run(string(from)+"/"+string(tr), func(t *testing.T) {
				b := MustTransition(t, s, MustCreateBooking(t, s, acc.ID), now, PathTo(from)...)
				wantEqual(t, "status before", b.Status, from)
				want, wantErr := skygate.Transition(from, tr)
				got, err := s.TransitionBooking(t.Context(), acc.ID, b.ID, tr, now.Add(time.Minute), ApplyLikeService)
				if wantErr != nil {
					WantCode(t, err, skygate.ErrorCode(wantErr))
					wantEqual(t, "unchanged booking", MustBooking(t, s, acc.ID, b.ID), b)
					return
				}
				MustNoError(t, err, "TransitionBooking")
				wantEqual(t, "status", got.Status, want)
				wantEqual(t, "last history entry", got.StatusHistory[len(got.StatusHistory)-1],
					skygate.StatusChange{Status: want, At: Stored(now.Add(time.Minute))})
				wantEqual(t, "history length", len(got.StatusHistory), len(b.StatusHistory)+1)
				wantEqual(t, "stored", MustBooking(t, s, acc.ID, b.ID), got)
			})
		}
	}
}

func testBookingTransitionEvents(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	b := MustCreateBooking(t, s, acc.ID)
	issued := MustTransition(t, s, b, At(time.Minute), skygate.TriggerIssue)
	if issued.Pass == nil || issued.ConfirmBefore == nil {
		t.Fatalf("issue did not keep the pass and deadline: %+v", issued)
	}
	wantEqual(t, "stored issued", MustBooking(t, s, acc.ID, b.ID), issued)
	MustTransition(t, s, issued, At(2*time.Minute), skygate.TriggerCancel)

	events := MustEventsAfter(t, s, 0)
	type seen struct{ Type, Status string }
	var got []seen
	for i, e := range events {
		if i > 0 && e.Seq <= events[i-1].Seq {
			t.Fatalf("events out of order: %d after %d", e.Seq, events[i-1].Seq)
		}
		var data struct {
			BookingID string `json:"booking_id"`
			Status    string `json:"status"`
		}
		MustNoError(t, json.Unmarshal(e.Data, &data), "decode event data")
		wantEqual(t, "event booking id", data.BookingID, b.ID)
		wantEqual(t, "event account", e.AccountID, acc.ID)
		got = append(got, seen{e.Type, data.Status})
		one, err := s.Event(t.Context(), acc.ID, e.ID)
		MustNoError(t, err, "Event")
		wantEqual(t, "Event", one, e)
	}
	wantEqual(t, "events", got, []seen{
		{skygate.EventBookingStatusChanged, "Issued"}, {skygate.EventPassStatusChanged, "Active"},
		{skygate.EventBookingStatusChanged, "Canceled"}, {skygate.EventPassStatusChanged, "Voided"},
	})
	wantEqual(t, "events after the last", len(MustEventsAfter(t, s, events[len(events)-1].Seq)), 0)
	page, err := s.EventsAfter(t.Context(), events[0].Seq, 2)
	MustNoError(t, err, "EventsAfter with limit")
	wantEqual(t, "page", page, events[1:3])
}

func testBookingApplyError(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	b := MustCreateBooking(t, s, acc.ID)
	boom := errors.New("boom")
	_, err := s.TransitionBooking(t.Context(), acc.ID, b.ID, skygate.TriggerIssue, At(time.Minute),
		func(before, after *skygate.Booking) ([]*skygate.Event, error) { return nil, boom })
	if !errors.Is(err, boom) {
		t.Fatalf("TransitionBooking error = %v, want the apply error", err)
	}
	wantEqual(t, "unchanged", MustBooking(t, s, acc.ID, b.ID), b)
	wantEqual(t, "events", len(MustEventsAfter(t, s, 0)), 0)
}

func testBookingList(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	var ids []string
	for i := range 5 {
		b := MustCreateBooking(t, s, acc.ID, WithBookingCreated(At(time.Duration(i)*time.Minute)))
		ids = append(ids, b.ID)
	}
	MustTransition(t, s, MustBooking(t, s, acc.ID, ids[1]), At(time.Hour), skygate.TriggerCancel)
	MustCreateBooking(t, s, MustCreateAccount(t, s).ID) // another account's booking

	tests := []struct {
		name   string
		status skygate.BookingStatus
		page   skygate.Page
		want   []string
		total  int
	}{
		{"all newest first", "", skygate.Page{Limit: 10}, []string{ids[4], ids[3], ids[2], ids[1], ids[0]}, 5},
		{"page", "", skygate.Page{Limit: 2, Offset: 1}, []string{ids[3], ids[2]}, 5},
		{"past the end", "", skygate.Page{Limit: 2, Offset: 5}, nil, 5},
		{"no limit", "", skygate.Page{}, []string{ids[4], ids[3], ids[2], ids[1], ids[0]}, 5},
		{"status", skygate.BookingCanceled, skygate.Page{Limit: 10}, []string{ids[1]}, 1},
		{"status none", skygate.BookingIssued, skygate.Page{Limit: 10}, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, total, err := s.ListBookings(t.Context(), acc.ID, tt.status, tt.page)
			MustNoError(t, err, "ListBookings")
			var got []string
			for _, b := range list {
				got = append(got, b.ID)
			}
			wantEqual(t, "ids", got, tt.want)
			wantEqual(t, "total", total, tt.total)
			if list == nil {
				t.Fatal("ListBookings returned a nil slice")
			}
		})
	}
}

func testBookingOtherAccount(t *testing.T, s skygate.Store) {
	owner := MustCreateAccount(t, s)
	other := MustCreateAccount(t, s)
	b := MustTransition(t, s, MustCreateBooking(t, s, owner.ID), At(time.Minute), skygate.TriggerIssue)
	event := MustEventsAfter(t, s, 0)[0]
	ctx := t.Context()
	tests := []struct {
		name string
		call func() error
	}{
		{"Booking", func() error { _, err := s.Booking(ctx, other.ID, b.ID); return err }},
		{"TransitionBooking", func() error {
			_, err := s.TransitionBooking(ctx, other.ID, b.ID, skygate.TriggerCancel, At(time.Hour), ApplyLikeService)
			return err
		}},
		{"Event", func() error { _, err := s.Event(ctx, other.ID, event.ID); return err }},
		{"IdempotencyRecord", func() error {
			nb := NewBooking(owner.ID)
			if _, err := s.CreateBooking(ctx, NewRecord(nb, "shared-key", "fp"), nb, nil); err != nil {
				return err
			}
			_, err := s.IdempotencyRecord(ctx, other.ID, skygate.OperationCreateBooking, "shared-key", T0)
			return err
		}},
		{"unknown booking", func() error { _, err := s.Booking(ctx, owner.ID, skygate.NewID()); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { WantCode(t, tt.call(), skygate.CodeNotFound) })
	}
	list, total, err := s.ListBookings(ctx, other.ID, "", skygate.Page{Limit: 10})
	MustNoError(t, err, "ListBookings")
	wantEqual(t, "other account's list", len(list)+total, 0)
	wantEqual(t, "booking untouched", MustBooking(t, s, owner.ID, b.ID), b)

	// The same key in another account is another key.
	ob := NewBooking(other.ID)
	replay, err := s.CreateBooking(ctx, NewRecord(ob, "shared-key", "other"), ob, nil)
	MustNoError(t, err, "CreateBooking in the other account")
	if replay != nil {
		t.Fatalf("a key of another account was replayed: %+v", replay)
	}
}

func testBookingAdmin(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	b := MustTransition(t, s, MustCreateBooking(t, s, acc.ID), At(time.Minute), skygate.TriggerIssue, skygate.TriggerConfirm)
	got, err := s.BookingAdmin(t.Context(), b.ID)
	MustNoError(t, err, "BookingAdmin")
	wantEqual(t, "BookingAdmin", got, b)
	done, err := s.TransitionBookingAdmin(t.Context(), b.ID, skygate.TriggerUse, At(time.Hour), ApplyLikeService, Audit("TransitionBookingAdmin"))
	MustNoError(t, err, "TransitionBookingAdmin")
	wantEqual(t, "status", done.Status, skygate.BookingCompleted)
	wantEqual(t, "stored", MustBooking(t, s, acc.ID, b.ID), done)
	_, err = s.BookingAdmin(t.Context(), skygate.NewID())
	WantCode(t, err, skygate.CodeNotFound)
	_, err = s.TransitionBookingAdmin(t.Context(), skygate.NewID(), skygate.TriggerUse, At(time.Hour), nil, Audit("TransitionBookingAdmin"))
	WantCode(t, err, skygate.CodeNotFound)
	_, err = s.TransitionBookingAdmin(t.Context(), b.ID, skygate.TriggerUse, At(time.Hour), nil, Audit("TransitionBookingAdmin"))
	WantCode(t, err, skygate.CodeInvalidBookingStatus)
}

// PathTo lists the triggers that lead a new booking to status s.
func PathTo(s skygate.BookingStatus) []skygate.Trigger {
	return map[skygate.BookingStatus][]skygate.Trigger{
		skygate.BookingPending:   nil,
		skygate.BookingIssued:    {skygate.TriggerIssue},
		skygate.BookingConfirmed: {skygate.TriggerIssue, skygate.TriggerConfirm},
		skygate.BookingCompleted: {skygate.TriggerIssue, skygate.TriggerConfirm, skygate.TriggerUse},
		skygate.BookingExpired:   {skygate.TriggerIssue, skygate.TriggerExpire},
		skygate.BookingCanceled:  {skygate.TriggerCancel},
	}[s]
}
