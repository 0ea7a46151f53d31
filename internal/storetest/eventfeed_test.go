package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

var eventFeedTests = []test{
	{"Pagination", testEventFeedPagination},
	{"TypeFilter", testEventFeedTypes},
	{"Since", testEventFeedSince},
	{"HeadOfEmptyFeed", testEventFeedEmpty},
	{"Isolation", testEventFeedIsolation},
	{"Changes", testEventFeedChanges},
	{"ChangesTruncated", testEventFeedChangesTruncated},
	{"Purge", testEventPurge},
	{"PurgeBounded", testEventPurgeBounded},
}

// mustWriteTypes writes events of types at at, in one transaction, and returns them.
func mustWriteTypes(tb testing.TB, s skygate.Store, accountID string, at time.Time, types ...string) []*skygate.Event {
	tb.Helper()
	events := make([]*skygate.Event, len(types))
	for i, typ := range types {
		events[i] = MustNewEvent(tb, accountID, typ, at)
	}
	mustWriteEvents(tb, s, accountID, events...)
	return events
}

// mustFeed reads a page of the account's feed.
func mustFeed(tb testing.TB, s skygate.Store, accountID string, after int64, limit int, types ...string) *skygate.EventFeedPage {
	tb.Helper()
	p, err := s.EventFeed(tb.Context(), skygate.EventFeedQuery{AccountID: accountID, After: after, Types: types, Limit: limit})
	MustNoError(tb, err, "EventFeed")
	if p.Events == nil {
		tb.Fatal("EventFeed returned nil events, want an empty slice")
	}
	if p.Next < after {
		tb.Fatalf("EventFeed after %d: next %d goes back", after, p.Next)
	}
	return p
}

// eventIDs returns the ids of events.
func eventIDs(events []*skygate.Event) []string {
	ids := []string{}
	for _, e := range events {
		ids = append(ids, e.ID)
	}
	return ids
}

// testEventFeedPagination reads five events two at a time: full pages continue from
// their last event, the partial last page and the empty page after it from the head,
// and each event is read once, whole, as written.
func testEventFeedPagination(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	var written []*skygate.Event
	for i := range 5 {
		written = append(written, mustWriteTypes(t, s, acc.ID, At(time.Duration(i)*time.Second), skygate.EventWebhookTest)...)
	}
	var (
		read  []*skygate.Event
		after int64
	)
	for _, want := range []int{2, 2, 1, 0, 0} {
		p := mustFeed(t, s, acc.ID, after, 2)
		if len(p.Events) != want {
			t.Fatalf("page after %d: %d events, want %d", after, len(p.Events), want)
		}
		for _, e := range p.Events {
			if e.Seq <= after {
				t.Fatalf("event %s at %d, not after %d", e.ID, e.Seq, after)
			}
			wantUTC(t, "event", e.CreatedAt)
		}
		if want == 2 && p.Next != p.Events[1].Seq {
			t.Fatalf("a full page's next = %d, want its last event's %d", p.Next, p.Events[1].Seq)
		}
		if want < 2 && len(read)+want == 5 && len(p.Events) > 0 && p.Next < p.Events[len(p.Events)-1].Seq {
			t.Fatalf("the last page's next = %d, below its last event", p.Next)
		}
		read = append(read, p.Events...)
		after = p.Next
	}
	wantEqual(t, "ids in feed order", eventIDs(read), eventIDs(written))
	for i, e := range read {
		w := *written[i]
		w.Seq = e.Seq
		wantEqual(t, "event as read", *e, w)
		got, err := s.Event(t.Context(), acc.ID, e.ID)
		MustNoError(t, err, "Event")
		wantEqual(t, "Event", got.Seq, e.Seq)
	}
}

// testEventFeedTypes filters by type: only matching events come, and once the matching
// ones are read the cursor moves past the others, so the next page is empty.
func testEventFeedTypes(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	a := mustWriteTypes(t, s, acc.ID, At(0), skygate.EventBookingStatusChanged, skygate.EventPassStatusChanged)
	b := mustWriteTypes(t, s, acc.ID, At(time.Second), skygate.EventWebhookTest, skygate.EventBookingStatusChanged)
	p := mustFeed(t, s, acc.ID, 0, 10, skygate.EventBookingStatusChanged)
	wantEqual(t, "booking events", eventIDs(p.Events), []string{a[0].ID, b[1].ID})
	if p.Next != p.Events[1].Seq {
		t.Fatalf("next = %d, want %d (the last matching event is the newest)", p.Next, p.Events[1].Seq)
	}
	p = mustFeed(t, s, acc.ID, 0, 10, skygate.EventPassStatusChanged, skygate.EventWebhookTest)
	wantEqual(t, "pass and test events", eventIDs(p.Events), []string{a[1].ID, b[0].ID})
	all := mustFeed(t, s, acc.ID, 0, 10)
	if p.Next != all.Events[3].Seq {
		t.Fatalf("filtered next = %d, want the head %d", p.Next, all.Events[3].Seq)
	}
	if again := mustFeed(t, s, acc.ID, p.Next, 10, skygate.EventPassStatusChanged); len(again.Events) != 0 || again.Next != p.Next {
		t.Fatalf("after the head: %d events, next %d, want none and %d", len(again.Events), again.Next, p.Next)
	}
	none := mustFeed(t, s, acc.ID, 0, 10, skygate.EventESIMOrderCompleted)
	if len(none.Events) != 0 || none.Next != p.Next {
		t.Fatalf("no match: %d events, next %d, want none and the head %d", len(none.Events), none.Next, p.Next)
	}
}

// testEventFeedSince: events created before the query's Since (past the retention)
// are not served, and the head still moves past them.
func testEventFeedSince(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	mustWriteTypes(t, s, acc.ID, At(0), skygate.EventWebhookTest)
	recent := mustWriteTypes(t, s, acc.ID, At(time.Hour), skygate.EventWebhookTest)
	for _, types := range [][]string{nil, {skygate.EventWebhookTest}} {
		p, err := s.EventFeed(t.Context(), skygate.EventFeedQuery{AccountID: acc.ID, Since: At(time.Hour), Types: types, Limit: 10})
		MustNoError(t, err, "EventFeed")
		wantEqual(t, "events since", eventIDs(p.Events), eventIDs(recent))
		if p.Next != p.Events[0].Seq {
			t.Fatalf("next = %d, want %d", p.Next, p.Events[0].Seq)
		}
	}
}

// testEventFeedEmpty: an account without events gets an empty page whose next is
// where it asked from.
func testEventFeedEmpty(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	for _, after := range []int64{0, 42} {
		p := mustFeed(t, s, acc.ID, after, 10)
		if len(p.Events) != 0 || p.Next != after {
			t.Fatalf("empty feed after %d: %d events, next %d", after, len(p.Events), p.Next)
		}
	}
}

// testEventFeedIsolation: another account's events are neither on a page nor readable
// by id.
func testEventFeedIsolation(t *testing.T, s skygate.Store) {
	acc, other := MustCreateAccount(t, s), MustCreateAccount(t, s)
	mine := mustWriteTypes(t, s, acc.ID, At(0), skygate.EventWebhookTest)
	theirs := mustWriteTypes(t, s, other.ID, At(0), skygate.EventWebhookTest, skygate.EventWebhookTest)
	p := mustFeed(t, s, acc.ID, 0, 10)
	wantEqual(t, "own events", eventIDs(p.Events), eventIDs(mine))
	p = mustFeed(t, s, other.ID, 0, 10, skygate.EventWebhookTest)
	wantEqual(t, "other's events", eventIDs(p.Events), eventIDs(theirs))
	_, err := s.Event(t.Context(), acc.ID, theirs[0].ID)
	WantCode(t, err, skygate.CodeNotFound)
}

// mustChanges reads the feed's changes after a position.
func mustChanges(tb testing.TB, s skygate.Store, after int64, limit int) *skygate.EventFeedChanges {
	tb.Helper()
	ch, err := s.EventFeedChanges(tb.Context(), after, limit)
	MustNoError(tb, err, "EventFeedChanges")
	if ch.Head < after || ch.AccountIDs == nil {
		tb.Fatalf("EventFeedChanges after %d: %+v", after, ch)
	}
	return ch
}

// testEventFeedChanges: the changes after a head name each account with new events
// once, whatever its filter would read, and end at the newest position; from there
// nothing changed. Other tests' accounts write concurrently, so only this test's
// accounts are checked for absence.
func testEventFeedChanges(t *testing.T, s skygate.Store) {
	acc, other, quiet := MustCreateAccount(t, s), MustCreateAccount(t, s), MustCreateAccount(t, s)
	mustWriteTypes(t, s, quiet.ID, At(0), skygate.EventWebhookTest)
	start := mustChanges(t, s, 0, 1<<30).Head
	mustWriteTypes(t, s, acc.ID, At(0), skygate.EventWebhookTest, skygate.EventBookingStatusChanged)
	mustWriteTypes(t, s, other.ID, At(0), skygate.EventWebhookTest)
	ch := mustChanges(t, s, start, 1000)
	if ch.Truncated || !slices.Contains(ch.AccountIDs, acc.ID) || !slices.Contains(ch.AccountIDs, other.ID) || slices.Contains(ch.AccountIDs, quiet.ID) {
		t.Fatalf("changes after %d: %+v, want %s and %s but not %s", start, ch, acc.ID, other.ID, quiet.ID)
	}
	seen := map[string]int{}
	for _, id := range ch.AccountIDs {
		if seen[id]++; seen[id] > 1 {
			t.Fatalf("account %s listed twice: %v", id, ch.AccountIDs)
		}
	}
	if p := mustFeed(t, s, other.ID, 0, 10); ch.Head < p.Events[0].Seq {
		t.Fatalf("head %d, below the newest event's %d", ch.Head, p.Events[0].Seq)
	}
	if again := mustChanges(t, s, ch.Head, 1000); slices.Contains(again.AccountIDs, acc.ID) || slices.Contains(again.AccountIDs, other.ID) {
		t.Fatalf("changes after the head %d: %+v", ch.Head, again)
	}
}

// testEventFeedChangesTruncated: more events than the limit past the position make
// the changes truncated, with no accounts and the newest position as head, so that a
// caller wakes everyone and goes on from there.
func testEventFeedChangesTruncated(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	start := mustChanges(t, s, 0, 1<<30).Head
	mustWriteTypes(t, s, acc.ID, At(0), skygate.EventWebhookTest, skygate.EventWebhookTest, skygate.EventWebhookTest)
	ch := mustChanges(t, s, start, 2)
	if !ch.Truncated || len(ch.AccountIDs) != 0 {
		t.Fatalf("changes of 3 events with limit 2: %+v, want truncated", ch)
	}
	if p := mustFeed(t, s, acc.ID, 0, 10); ch.Head < p.Events[2].Seq {
		t.Fatalf("truncated head %d, below the newest event's %d", ch.Head, p.Events[2].Seq)
	}
}

// testEventPurge deletes the events created before the cutoff with their deliveries
// and attempts, of every account; newer events and their deliveries stay.
func testEventPurge(t *testing.T, s skygate.Store) {
	acc, other := MustCreateAccount(t, s), MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, acc.ID)
	old := MustTestDelivery(t, s, acc.ID, w.ID, At(0))
	for _, j := range MustClaim(t, s, At(0), At(time.Minute), 10) {
		MustComplete(t, s, j, skygate.WebhookSucceeded, 204, At(time.Second))
	}
	otherOld := mustWriteTypes(t, s, other.ID, At(time.Second), skygate.EventWebhookTest)
	recent := MustTestDelivery(t, s, acc.ID, w.ID, At(2*time.Hour))

	n, err := s.PurgeEvents(t.Context(), At(time.Hour), 100)
	MustNoError(t, err, "PurgeEvents")
	if n != 2 {
		t.Fatalf("purged %d events, want 2", n)
	}
	for _, e := range []struct{ account, id string }{{acc.ID, old.EventID}, {other.ID, otherOld[0].ID}} {
		_, err := s.Event(t.Context(), e.account, e.id)
		WantCode(t, err, skygate.CodeNotFound)
	}
	_, err = s.WebhookDelivery(t.Context(), acc.ID, w.ID, old.ID)
	WantCode(t, err, skygate.CodeNotFound)
	MustDelivery(t, s, acc.ID, w.ID, recent.ID)
	p := mustFeed(t, s, acc.ID, 0, 10)
	wantEqual(t, "left", eventIDs(p.Events), []string{recent.EventID})
	if n, err := s.PurgeEvents(t.Context(), At(time.Hour), 100); err != nil || n != 0 {
		t.Fatalf("second purge: %d, %v; want 0", n, err)
	}
}

// testEventPurgeBounded: one call deletes at most limit events, oldest first, and
// repeated calls finish the work.
func testEventPurgeBounded(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	for i := range 5 {
		mustWriteTypes(t, s, acc.ID, At(time.Duration(i)*time.Minute), skygate.EventWebhookTest)
	}
	total := 0
	for _, want := range []int{2, 2, 0} {
		n, err := s.PurgeEvents(t.Context(), At(4*time.Minute), 2)
		MustNoError(t, err, "PurgeEvents")
		if n != want {
			t.Fatalf("purge %d: %d events, want %d", total, n, want)
		}
		total += n
	}
	if p := mustFeed(t, s, acc.ID, 0, 10); len(p.Events) != 1 {
		t.Fatalf("%d events left, want the newest", len(p.Events))
	}
}
