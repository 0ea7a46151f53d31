package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

func testIdempotencyReplay(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	first := NewBooking(acc.ID)
	rec := NewRecord(first, "key-1", "fingerprint-a")
	replay, err := s.CreateBooking(t.Context(), rec, first, nil)
	MustNoError(t, err, "CreateBooking")
	if replay != nil {
		t.Fatalf("first CreateBooking replayed %+v", replay)
	}
	stored, err := s.IdempotencyRecord(t.Context(), acc.ID, skygate.OperationCreateBooking, "key-1", At(time.Hour))
	MustNoError(t, err, "IdempotencyRecord")
	wantEqual(t, "IdempotencyRecord", stored, rec)

	second := NewBooking(acc.ID, WithBookingCreated(At(time.Hour)))
	event, err := skygate.NewEvent(acc.ID, "test.event", true, map[string]string{}, At(time.Hour))
	MustNoError(t, err, "NewEvent")
	replay, err = s.CreateBooking(t.Context(), NewRecord(second, "key-1", "fingerprint-b"), second, []*skygate.Event{event})
	MustNoError(t, err, "CreateBooking with a used key")
	wantEqual(t, "replayed record", replay, rec)
	_, err = s.Booking(t.Context(), acc.ID, second.ID)
	WantCode(t, err, skygate.CodeNotFound)
	wantEqual(t, "events of a replay", len(MustEventsAfter(t, s, 0)), 0)

	_, err = s.IdempotencyRecord(t.Context(), acc.ID, skygate.OperationCreateBooking, "key-1", rec.ExpiresAt)
	WantCode(t, err, skygate.CodeNotFound)
	_, err = s.IdempotencyRecord(t.Context(), acc.ID, "esim.order", "key-1", T0)
	WantCode(t, err, skygate.CodeNotFound)
}

func testIdempotencyExpired(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	first := NewBooking(acc.ID)
	rec := NewRecord(first, "key", "a")
	_, err := s.CreateBooking(t.Context(), rec, first, nil)
	MustNoError(t, err, "CreateBooking")

	justBefore := NewBooking(acc.ID, WithBookingCreated(rec.ExpiresAt.Add(-time.Microsecond)))
	replay, err := s.CreateBooking(t.Context(), NewRecord(justBefore, "key", "b"), justBefore, nil)
	MustNoError(t, err, "CreateBooking before expiry")
	if replay == nil {
		t.Fatal("a live key was not replayed")
	}

	later := NewBooking(acc.ID, WithBookingCreated(rec.ExpiresAt))
	laterRec := NewRecord(later, "key", "b")
	replay, err = s.CreateBooking(t.Context(), laterRec, later, nil)
	MustNoError(t, err, "CreateBooking after expiry")
	if replay != nil {
		t.Fatalf("an expired key was replayed: %+v", replay)
	}
	MustBooking(t, s, acc.ID, later.ID)
	stored, err := s.IdempotencyRecord(t.Context(), acc.ID, skygate.OperationCreateBooking, "key", later.CreatedAt)
	MustNoError(t, err, "IdempotencyRecord")
	wantEqual(t, "record after reuse", stored, laterRec)
}

func testIdempotencyPurge(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	old := MustCreateBooking(t, s, acc.ID, WithBookingCreated(T0))
	young := NewBooking(acc.ID, WithBookingCreated(At(2*time.Hour)))
	_, err := s.CreateBooking(t.Context(), NewRecord(young, "young", "fp"), young, nil)
	MustNoError(t, err, "CreateBooking")

	n, err := s.PurgeIdempotencyRecords(t.Context(), T0.Add(KeyLifetime+time.Hour))
	MustNoError(t, err, "PurgeIdempotencyRecords")
	wantEqual(t, "purged", n, 1)
	n, err = s.PurgeIdempotencyRecords(t.Context(), T0.Add(KeyLifetime+time.Hour))
	MustNoError(t, err, "PurgeIdempotencyRecords again")
	wantEqual(t, "purged again", n, 0)
	_, err = s.IdempotencyRecord(t.Context(), acc.ID, skygate.OperationCreateBooking, "young", T0)
	MustNoError(t, err, "IdempotencyRecord of the young key")
	MustBooking(t, s, acc.ID, old.ID) // bookings outlive their keys
}

// testIdempotencyConcurrent sends 50 creates with one key at once: exactly one
// booking is written and the other 49 get its record.
func testIdempotencyConcurrent(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	const n = 50
	var (
		wg      sync.WaitGroup
		start   = make(chan struct{})
		replays = make([]*skygate.IdempotencyRecord, n)
		errs    = make([]error, n)
	)
	for i := range n {
		wg.Go(func() {
			b := NewBooking(acc.ID)
			e, err := skygate.NewEvent(acc.ID, "test.created", true, map[string]string{"id": b.ID}, T0)
			if err != nil {
				errs[i] = err
				return
			}
			<-start
			replays[i], errs[i] = s.CreateBooking(t.Context(), NewRecord(b, "same-key", "fp"), b, []*skygate.Event{e})
		})
	}
	close(start)
	wg.Wait()
	created := 0
	for i := range n {
		MustNoError(t, errs[i], "CreateBooking")
		if replays[i] == nil {
			created++
		}
	}
	wantEqual(t, "created", created, 1)
	list, total, err := s.ListBookings(t.Context(), acc.ID, "", skygate.Page{})
	MustNoError(t, err, "ListBookings")
	wantEqual(t, "bookings", total, 1)
	for _, r := range replays {
		if r != nil && r.ResourceID != list[0].ID {
			t.Fatalf("replay names %s, want the one booking %s", r.ResourceID, list[0].ID)
		}
	}
	wantEqual(t, "events", len(MustEventsAfter(t, s, 0)), 1)
}

// race runs the triggers on one booking at once and returns their errors.
func race(t *testing.T, s skygate.Store, b *skygate.Booking, now time.Time, triggers ...skygate.Trigger) []error {
	t.Helper()
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, len(triggers))
	for i, tr := range triggers {
		wg.Go(func() {
			<-start
			_, errs[i] = s.TransitionBooking(t.Context(), b.AccountID, b.ID, tr, now, ApplyLikeService)
		})
	}
	close(start)
	wg.Wait()
	return errs
}

// testConcurrentTransitions races transitions that exclude each other: exactly one
// wins and the others get InvalidBookingStatus.
func testConcurrentTransitions(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	tests := []struct {
		name     string
		from     skygate.BookingStatus
		triggers []skygate.Trigger
	}{
		{"confirm twice", skygate.BookingIssued, []skygate.Trigger{"confirm", "confirm", "confirm", "confirm"}},
		{"confirm or expire", skygate.BookingIssued, []skygate.Trigger{"confirm", "expire", "confirm", "expire"}},
		{"cancel twice", skygate.BookingIssued, []skygate.Trigger{"cancel", "cancel", "cancel", "cancel"}},
		{"issue twice", skygate.BookingPending, []skygate.Trigger{"issue", "issue", "issue", "issue"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 20 {
				b := MustTransition(t, s, MustCreateBooking(t, s, acc.ID), At(time.Minute), PathTo(tt.from)...)
				wins := 0
				for _, err := range race(t, s, b, At(time.Hour), tt.triggers...) {
					if err == nil {
						wins++
					} else {
						WantCode(t, err, skygate.CodeInvalidBookingStatus)
					}
				}
				wantEqual(t, "winners", wins, 1)
				wantEqual(t, "history length", len(MustBooking(t, s, acc.ID, b.ID).StatusHistory), len(b.StatusHistory)+1)
			}
		})
	}
}

// testConcurrentConfirmCancel races confirm and cancel on an Issued booking. Cancel
// is allowed from Confirmed too, so it always succeeds; the outcome must be one of the
// two serial orders, never a lost update.
func testConcurrentConfirmCancel(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	for range 20 {
		b := MustTransition(t, s, MustCreateBooking(t, s, acc.ID), At(time.Minute), skygate.TriggerIssue)
		seq := lastSeq(t, s)
		errs := race(t, s, b, At(time.Hour), skygate.TriggerConfirm, skygate.TriggerCancel)
		MustNoError(t, errs[1], "cancel")
		got := MustBooking(t, s, acc.ID, b.ID)
		var path []skygate.BookingStatus
		for _, h := range got.StatusHistory {
			path = append(path, h.Status)
		}
		want := []skygate.BookingStatus{"Pending", "Issued", "Canceled"}
		wantEvents := 2 // booking Canceled, pass Voided
		if errs[0] == nil {
			want = []skygate.BookingStatus{"Pending", "Issued", "Confirmed", "Canceled"}
			wantEvents = 3
		} else {
			WantCode(t, errs[0], skygate.CodeInvalidBookingStatus)
		}
		wantEqual(t, "history", path, want)
		wantEqual(t, "events", len(MustEventsAfter(t, s, seq)), wantEvents)
	}
}

// lastSeq returns the Seq of the newest event, or 0.
func lastSeq(t *testing.T, s skygate.Store) int64 {
	t.Helper()
	events := MustEventsAfter(t, s, 0)
	if len(events) == 0 {
		return 0
	}
	return events[len(events)-1].Seq
}

func testClaims(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	var pending []*skygate.Booking
	for i := range 3 {
		pending = append(pending, MustCreateBooking(t, s, acc.ID, WithBookingCreated(At(time.Duration(i)*time.Minute))))
	}
	ctx := t.Context()
	now := At(time.Minute)
	n, err := s.ClaimBookings(ctx, skygate.BookingPending, skygate.TriggerIssue, now, 0, ApplyLikeService)
	MustNoError(t, err, "ClaimBookings issue")
	wantEqual(t, "issued", n, 2) // the third is created after now
	for _, b := range pending[:2] {
		// Every column the transition writes, each booking its own values: the claim
		// writes its batch with one statement.
		got := MustBooking(t, s, acc.ID, b.ID)
		if got.Pass == nil {
			t.Fatalf("issued booking %s has no pass", b.ID)
		}
		want := b.Clone()
		want.Status = skygate.BookingIssued
		want.UpdatedAt = Stored(now)
		want.StatusHistory = append(want.StatusHistory, skygate.StatusChange{Status: skygate.BookingIssued, At: Stored(now)})
		deadline := Stored(now.Add(ConfirmWindow))
		want.ConfirmBefore = &deadline
		want.Pass = &skygate.Pass{Code: got.Pass.Code, Payload: "SKYGATE:" + b.ID + ":" + got.Pass.Code,
			ValidFrom: Stored(now), ValidUntil: Stored(now.Add(48 * time.Hour))}
		wantEqual(t, "issued booking", got, want)
	}
	if MustBooking(t, s, acc.ID, pending[0].ID).Pass.Code == MustBooking(t, s, acc.ID, pending[1].ID).Pass.Code {
		t.Fatal("two bookings issued in one claim have one pass code")
	}
	MustTransition(t, s, MustBooking(t, s, acc.ID, pending[1].ID), now, skygate.TriggerConfirm)

	deadline := now.Add(ConfirmWindow)
	n, err = s.ClaimBookings(ctx, skygate.BookingIssued, skygate.TriggerExpire, deadline, 0, ApplyLikeService)
	MustNoError(t, err, "ClaimBookings expire at the deadline")
	wantEqual(t, "expired at the deadline", n, 0)
	n, err = s.ClaimBookings(ctx, skygate.BookingIssued, skygate.TriggerExpire, deadline.Add(time.Microsecond), 0, ApplyLikeService)
	MustNoError(t, err, "ClaimBookings expire")
	wantEqual(t, "expired", n, 1) // the confirmed one stays
	wantEqual(t, "status", MustBooking(t, s, acc.ID, pending[0].ID).Status, skygate.BookingExpired)
	wantEqual(t, "status", MustBooking(t, s, acc.ID, pending[1].ID).Status, skygate.BookingConfirmed)

	for range 3 {
		MustCreateBooking(t, s, acc.ID)
	}
	later := At(time.Hour)
	n, err = s.ClaimBookings(ctx, skygate.BookingPending, skygate.TriggerIssue, later, 2, ApplyLikeService)
	MustNoError(t, err, "ClaimBookings with a limit")
	wantEqual(t, "limited", n, 2)
	boom := errors.New("boom")
	n, err = s.ClaimBookings(ctx, skygate.BookingPending, skygate.TriggerIssue, later, 0,
		func(before, after *skygate.Booking) ([]*skygate.Event, error) { return nil, boom })
	if !errors.Is(err, boom) || n != 0 {
		t.Fatalf("ClaimBookings with a failing apply = %d, %v", n, err)
	}
	n, err = s.ClaimBookings(ctx, skygate.BookingPending, skygate.TriggerIssue, later, 0, ApplyLikeService)
	MustNoError(t, err, "ClaimBookings rest")
	wantEqual(t, "rest", n, 2)

	_, err = s.ClaimBookings(ctx, skygate.BookingConfirmed, skygate.TriggerUse, later, 0, nil)
	WantCode(t, err, skygate.CodeValidation)
}

// testConcurrentClaims lets four claimers issue 40 bookings: each is issued once and
// apply runs once per booking.
func testConcurrentClaims(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	const bookings = 40
	for range bookings {
		MustCreateBooking(t, s, acc.ID)
	}
	var (
		mu      sync.Mutex
		applied = map[string]int{}
		wg      sync.WaitGroup
		start   = make(chan struct{})
		moved   [4]int
		errs    [4]error
	)
	apply := func(before, after *skygate.Booking) ([]*skygate.Event, error) {
		mu.Lock()
		applied[before.ID]++
		mu.Unlock()
		return ApplyLikeService(before, after)
	}
	for i := range moved {
		wg.Go(func() {
			<-start
			moved[i], errs[i] = s.ClaimBookings(t.Context(), skygate.BookingPending, skygate.TriggerIssue, At(time.Hour), 0, apply)
		})
	}
	close(start)
	wg.Wait()
	total := 0
	for i := range moved {
		MustNoError(t, errs[i], "ClaimBookings")
		total += moved[i]
	}
	wantEqual(t, "moved", total, bookings)
	wantEqual(t, "bookings applied", len(applied), bookings)
	for id, n := range applied {
		if n != 1 {
			t.Errorf("booking %s was applied %d times", id, n)
		}
	}
	_, issued, err := s.ListBookings(t.Context(), acc.ID, skygate.BookingIssued, skygate.Page{})
	MustNoError(t, err, "ListBookings")
	wantEqual(t, "issued", issued, bookings)
	wantEqual(t, "events", len(MustEventsAfter(t, s, 0)), 2*bookings)
}

// testEventsConcurrentReader reads the outbox by cursor while writers add events: each
// of two readers, which may assign positions at the same time, must see every event
// exactly once, in Seq order.
func testEventsConcurrentReader(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	const writers, perWriter, readers = 8, 6, 2
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for range perWriter {
				b := MustCreateBooking(t, s, acc.ID)
				MustTransition(t, s, b, At(time.Minute), skygate.TriggerIssue) // two events
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()

	const want = writers * perWriter * 2
	var seen [readers]int
	var rg sync.WaitGroup
	for r := range readers {
		rg.Go(func() { seen[r] = readFeed(t, s, done, want) })
	}
	rg.Wait()
	<-done
	for r := range readers {
		wantEqual(t, fmt.Sprintf("events seen by reader %d", r), seen[r], want)
	}
}

// readFeed reads the outbox by cursor, 5 events a call, until it has seen want events
// or the writers are done (done closed) and it found no more, and returns how many it
// saw. An event out of order or seen twice fails t.
func readFeed(t *testing.T, s skygate.Store, done <-chan struct{}, want int) int {
	seen := map[string]bool{}
	var cursor int64
	deadline := time.Now().Add(time.Minute)
	for len(seen) < want && time.Now().Before(deadline) {
		finished := false
		select {
		case <-done:
			finished = true
		default:
		}
		events, err := s.EventsAfter(t.Context(), cursor, 5)
		if err != nil {
			t.Errorf("EventsAfter: %v", err)
			return len(seen)
		}
		for _, e := range events {
			if e.Seq <= cursor || seen[e.ID] {
				t.Errorf("event %s (seq %d) out of order or repeated after cursor %d", e.ID, e.Seq, cursor)
				return len(seen)
			}
			seen[e.ID], cursor = true, e.Seq
		}
		if finished && len(events) == 0 {
			break
		}
	}
	return len(seen)
}
