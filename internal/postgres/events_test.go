package postgres_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/postgres/pgtest"
	"github.com/skygate/skygate/internal/storetest"
)

// TestEventsLateCommit holds a transaction that wrote an event open while the store
// writes others: those writers must not wait for it (there is no outbox lock), the
// feed must not show its event while it is open, and once it commits its event must
// come after the cursor of a reader that read the others, not before it.
func TestEventsLateCommit(t *testing.T) {
	t.Parallel()
	dsn := pgtest.MustDSN(t)
	s := pgtest.MustOpenAt(t, dsn)
	acc := storetest.MustCreateAccount(t, s)

	db, err := sql.Open("pgx", dsn)
	storetest.MustNoError(t, err, "open")
	t.Cleanup(func() { db.Close() })
	late, err := db.BeginTx(t.Context(), nil)
	storetest.MustNoError(t, err, "begin")
	defer late.Rollback()
	lateID := skygate.NewID()
	_, err = late.ExecContext(t.Context(), `INSERT INTO events (id, account_id, type, data, created_at)
		VALUES ($1, $2, 'booking.status.changed', '{}', now())`, lateID, acc.ID)
	storetest.MustNoError(t, err, "insert the late event")

	// The store's writers finish while the late transaction is open. The deadline
	// only turns a writer blocked behind it into a failure instead of a hung test.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	b := storetest.NewBooking(acc.ID)
	_, err = s.CreateBooking(ctx, storetest.NewRecord(b, "key", "a"), b, nil)
	storetest.MustNoError(t, err, "CreateBooking beside an open event writer")
	_, err = s.TransitionBooking(ctx, acc.ID, b.ID, skygate.TriggerIssue, storetest.At(time.Minute), storetest.ApplyLikeService)
	storetest.MustNoError(t, err, "TransitionBooking beside an open event writer")

	early, err := s.EventsAfter(ctx, 0, 0)
	storetest.MustNoError(t, err, "EventsAfter")
	if len(early) == 0 {
		t.Fatal("the committed events are not in the feed")
	}
	for _, e := range early {
		if e.ID == lateID {
			t.Fatal("the feed shows an event of an open transaction")
		}
	}
	cursor := early[len(early)-1].Seq

	storetest.MustNoError(t, late.Commit(), "commit the late event")
	e, err := s.Event(ctx, acc.ID, lateID)
	storetest.MustNoError(t, err, "Event")
	if e.Seq != 0 {
		t.Errorf("the late event has position %d before the feed was read, want 0", e.Seq)
	}
	after, err := s.EventsAfter(ctx, cursor, 0)
	storetest.MustNoError(t, err, "EventsAfter the cursor")
	if len(after) != 1 || after[0].ID != lateID || after[0].Seq <= cursor {
		t.Fatalf("after cursor %d the feed has %+v, want the late event %s after the cursor", cursor, after, lateID)
	}
	e, err = s.Event(ctx, acc.ID, lateID)
	storetest.MustNoError(t, err, "Event")
	if e.Seq != after[0].Seq {
		t.Errorf("Event's position %d, the feed's %d", e.Seq, after[0].Seq)
	}
}
