package eventfeed

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// fakeStore is a feed in memory; every EventFeed call is reported on reads, if set.
type fakeStore struct {
	mu     sync.Mutex
	events []*skygate.Event
	reads  chan skygate.EventFeedQuery
	head   int64
}

func (f *fakeStore) add(accountID, typ string, at time.Time) *skygate.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	e := &skygate.Event{ID: skygate.NewID(), Type: typ, AccountID: accountID, CreatedAt: at,
		Data: []byte("{}"), Seq: int64(len(f.events) + 1)}
	f.events = append(f.events, e)
	return e
}

func (f *fakeStore) EventFeed(_ context.Context, q skygate.EventFeedQuery) (*skygate.EventFeedPage, error) {
	f.mu.Lock()
	p := &skygate.EventFeedPage{Events: []*skygate.Event{}, Next: q.After}
	for _, e := range f.events {
		if e.AccountID != q.AccountID {
			continue
		}
		p.Next = max(p.Next, e.Seq)
		if e.Seq > q.After && !e.CreatedAt.Before(q.Since) && (len(q.Types) == 0 || slices.Contains(q.Types, e.Type)) && len(p.Events) < q.Limit {
			p.Events = append(p.Events, e)
		}
	}
	if n := len(p.Events); n == q.Limit {
		p.Next = p.Events[n-1].Seq
	}
	f.mu.Unlock()
	if f.reads != nil {
		f.reads <- q
	}
	return p, nil
}

func (f *fakeStore) EventFeedHead(context.Context) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.head, nil
}

func (f *fakeStore) PurgeEvents(context.Context, time.Time, int) (int, error) { return 0, nil }

func (f *fakeStore) Event(_ context.Context, accountID, eventID string) (*skygate.Event, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, e := range f.events {
		if e.AccountID == accountID && e.ID == eventID {
			return e, nil
		}
	}
	return nil, skygate.Errorf(skygate.CodeNotFound, "event not found")
}

// fixture is a service over a fake store at t0, whose waits end only when the test
// closes deadline.
type fixture struct {
	store    *fakeStore
	hub      *Hub
	svc      *Service
	deadline chan time.Time
	now      time.Time
}

func setup(t *testing.T, perAccount int) *fixture {
	t.Helper()
	f := &fixture{store: &fakeStore{}, deadline: make(chan time.Time), now: t0}
	f.hub = NewHub(HubConfig{Head: f.store.EventFeedHead, PerAccount: perAccount})
	f.svc = New(Config{Store: f.store, Hub: f.hub, Retention: 30 * 24 * time.Hour,
		Now: func() time.Time { return f.now }, After: func(time.Duration) <-chan time.Time { return f.deadline }})
	return f
}

// mustRead reads q and fails on an error.
func mustRead(tb testing.TB, svc *Service, q Query) *Page {
	tb.Helper()
	p, err := svc.Read(tb.Context(), q)
	if err != nil {
		tb.Fatalf("Read(%+v): %v", q, err)
	}
	return p
}

func TestCursorRoundTrip(t *testing.T) {
	t.Parallel()
	c := Cursor{Pos: 12345, Since: t0}
	got, err := ParseCursor(c.String())
	if err != nil || got != c {
		t.Fatalf("ParseCursor(%q) = %+v, %v; want %+v", c.String(), got, err, c)
	}
}

func TestReadRejects(t *testing.T) {
	t.Parallel()
	f := setup(t, 0)
	old := Cursor{Pos: 1, Since: t0.Add(-31 * 24 * time.Hour)}.String()
	future := Cursor{Pos: 1, Since: t0.Add(time.Hour)}.String()
	for _, tt := range []struct {
		name string
		q    Query
		code string
	}{
		{"not base64", Query{After: "!!"}, skygate.CodeBadRequest},
		{"not a cursor", Query{After: "aGVsbG8"}, skygate.CodeBadRequest},
		{"other version", Query{After: "Mi4xLjE"}, skygate.CodeBadRequest},
		{"negative position", Query{After: "MS4tMS4x"}, skygate.CodeBadRequest},
		{"from the future", Query{After: future}, skygate.CodeBadRequest},
		{"expired", Query{After: old}, skygate.CodeCursorExpired},
		{"limit too large", Query{Limit: MaxLimit + 1}, skygate.CodeBadRequest},
		{"negative limit", Query{Limit: -1}, skygate.CodeBadRequest},
		{"wait too long", Query{Wait: MaxWait + time.Second}, skygate.CodeBadRequest},
		{"negative wait", Query{Wait: -time.Second}, skygate.CodeBadRequest},
		{"unknown type", Query{Types: []string{"booking.created"}}, skygate.CodeBadRequest},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.q.AccountID = "acc"
			_, err := f.svc.Read(t.Context(), tt.q)
			if got := skygate.ErrorCode(err); got != tt.code {
				t.Fatalf("Read: %v, want %s", err, tt.code)
			}
		})
	}
}

// TestReadPages follows a feed with a filter: full pages continue from their last
// event and carry its time; the last page continues from the head at now.
func TestReadPages(t *testing.T) {
	t.Parallel()
	f := setup(t, 0)
	a := f.store.add("acc", skygate.EventWebhookTest, t0.Add(-3*time.Hour))
	b := f.store.add("acc", skygate.EventWebhookTest, t0.Add(-2*time.Hour))
	f.store.add("acc", skygate.EventBookingStatusChanged, t0.Add(-time.Hour))
	f.store.add("other", skygate.EventWebhookTest, t0)
	p := mustRead(t, f.svc, Query{AccountID: "acc", Types: []string{skygate.EventWebhookTest}, Limit: 1})
	if len(p.Events) != 1 || p.Events[0] != a || p.Next != (Cursor{Pos: a.Seq, Since: a.CreatedAt}) {
		t.Fatalf("first page: %+v", p)
	}
	p = mustRead(t, f.svc, Query{AccountID: "acc", After: p.Next.String(), Types: []string{skygate.EventWebhookTest}, Limit: 2})
	if len(p.Events) != 1 || p.Events[0] != b || p.Next != (Cursor{Pos: 3, Since: t0}) {
		t.Fatalf("last page: %+v", p)
	}
}

// TestReadSkipsPastRetention: without a cursor the feed starts at the oldest event
// still within the retention.
func TestReadSkipsPastRetention(t *testing.T) {
	t.Parallel()
	f := setup(t, 0)
	f.store.add("acc", skygate.EventWebhookTest, t0.Add(-30*24*time.Hour-time.Minute))
	kept := f.store.add("acc", skygate.EventWebhookTest, t0.Add(-30*24*time.Hour+time.Minute))
	p := mustRead(t, f.svc, Query{AccountID: "acc"})
	if len(p.Events) != 1 || p.Events[0] != kept {
		t.Fatalf("page: %+v", p.Events)
	}
}

// startRead runs Read in the background and returns the channel of its outcome.
func startRead(ctx context.Context, svc *Service, q Query) <-chan readResult {
	done := make(chan readResult, 1)
	go func() {
		p, err := svc.Read(ctx, q)
		done <- readResult{p, err}
	}()
	return done
}

type readResult struct {
	page *Page
	err  error
}

// TestWaitWakesOnNotify: a long-poll on an empty feed reads, waits, and answers the
// event that a commit in this process announced.
func TestWaitWakesOnNotify(t *testing.T) {
	t.Parallel()
	f := setup(t, 0)
	f.store.reads = make(chan skygate.EventFeedQuery)
	done := startRead(t.Context(), f.svc, Query{AccountID: "acc", Wait: MaxWait})
	<-f.store.reads // the first read found nothing
	e := f.store.add("acc", skygate.EventWebhookTest, t0)
	f.hub.NotifyAccounts([]string{"other", "acc"})
	<-f.store.reads
	r := <-done
	if r.err != nil || len(r.page.Events) != 1 || r.page.Events[0] != e {
		t.Fatalf("Read: %+v, %v", r.page, r.err)
	}
}

// TestWaitIgnoresOtherAccounts: another account's commit wakes the wait, which reads
// again, finds nothing of its own and waits on from the head.
func TestWaitIgnoresOtherAccounts(t *testing.T) {
	t.Parallel()
	f := setup(t, 0)
	f.store.reads = make(chan skygate.EventFeedQuery)
	f.store.add("acc", skygate.EventBookingStatusChanged, t0)
	done := startRead(t.Context(), f.svc, Query{AccountID: "acc", Types: []string{skygate.EventWebhookTest}, Wait: MaxWait})
	if q := <-f.store.reads; q.After != 0 {
		t.Fatalf("first read after %d", q.After)
	}
	f.store.add("other", skygate.EventWebhookTest, t0)
	f.store.add("acc", skygate.EventPassStatusChanged, t0)
	f.hub.Notify()
	if q := <-f.store.reads; q.After != 1 {
		t.Fatalf("second read after %d, want the head 1", q.After)
	}
	close(f.deadline)
	r := <-done
	if r.err != nil || len(r.page.Events) != 0 || r.page.Next.Pos != 3 {
		t.Fatalf("Read: %+v, %v; want no events and the head 3", r.page, r.err)
	}
}

// TestWaitEnds: a wait ends with an empty page and a cursor at its deadline, when the
// client leaves and when the hub drains; after a drain nothing waits.
func TestWaitEnds(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		end  func(f *fixture, cancel context.CancelFunc)
	}{
		{"deadline", func(f *fixture, _ context.CancelFunc) { close(f.deadline) }},
		{"client left", func(_ *fixture, cancel context.CancelFunc) { cancel() }},
		{"drain", func(f *fixture, _ context.CancelFunc) { f.hub.Drain() }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := setup(t, 0)
			f.store.reads = make(chan skygate.EventFeedQuery, 10)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			done := startRead(ctx, f.svc, Query{AccountID: "acc", Wait: MaxWait})
			<-f.store.reads
			tt.end(f, cancel)
			r := <-done
			if r.err != nil || len(r.page.Events) != 0 || r.page.Next != (Cursor{Pos: 0, Since: t0}) {
				t.Fatalf("Read: %+v, %v", r.page, r.err)
			}
		})
	}
	f := setup(t, 0)
	f.hub.Drain()
	if p := mustRead(t, f.svc, Query{AccountID: "acc", Wait: MaxWait}); len(p.Events) != 0 {
		t.Fatalf("read after drain: %+v", p)
	}
}

// TestWaitersPerAccount: an account's long-polls beyond the bound are refused at once;
// another account's are not, and a returned wait frees its place.
func TestWaitersPerAccount(t *testing.T) {
	t.Parallel()
	f := setup(t, 1)
	f.store.reads = make(chan skygate.EventFeedQuery, 10)
	done := startRead(t.Context(), f.svc, Query{AccountID: "acc", Wait: MaxWait})
	<-f.store.reads
	if _, err := f.svc.Read(t.Context(), Query{AccountID: "acc", Wait: MaxWait}); err != ErrTooManyWaiters {
		t.Fatalf("second wait: %v, want ErrTooManyWaiters", err)
	}
	mustRead(t, f.svc, Query{AccountID: "acc"}) // no wait: not counted
	other := startRead(t.Context(), f.svc, Query{AccountID: "other", Wait: MaxWait})
	<-f.store.reads
	<-f.store.reads
	close(f.deadline)
	for _, d := range []<-chan readResult{done, other} {
		if r := <-d; r.err != nil {
			t.Fatal(r.err)
		}
	}
	if n := f.hub.Waiters(); n != 0 {
		t.Fatalf("%d waiters left", n)
	}
}

// TestHubPollsHeadWhileWaiting: Run reads the head only while someone waits, once per
// tick, and wakes the waiters when it moved.
func TestHubPollsHeadWhileWaiting(t *testing.T) {
	t.Parallel()
	ticks := make(chan time.Time)
	heads := make(chan int64)
	hub := NewHub(HubConfig{
		Head:  func(context.Context) (int64, error) { return <-heads, nil },
		After: func(time.Duration) <-chan time.Time { return ticks },
	})
	ctx, cancel := context.WithCancel(t.Context())
	stopped := make(chan error, 1)
	go func() { stopped <- hub.Run(ctx) }()

	leave, ok := hub.enter("acc")
	if !ok {
		t.Fatal("enter refused")
	}
	changed, _ := hub.changedFor("acc")
	ticks <- t0
	heads <- 7 // a first value wakes the waiters
	<-changed
	changed, _ = hub.changedFor("acc")
	ticks <- t0
	heads <- 7
	ticks <- t0 // the poll of the unchanged head is done when the next tick is taken
	select {
	case <-changed:
		t.Fatal("an unchanged head woke the waiters")
	default:
	}
	heads <- 8
	<-changed
	leave()
	cancel()
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
}

// purgeStore records the purge's calls.
type purgeStore struct {
	fakeStore
	cutoffs []time.Time
	left    int
}

func (p *purgeStore) PurgeEvents(_ context.Context, before time.Time, limit int) (int, error) {
	p.cutoffs = append(p.cutoffs, before)
	n := min(p.left, limit)
	p.left -= n
	return n, nil
}

// TestPurge deletes in batches until none is left, past the retention and its margin.
func TestPurge(t *testing.T) {
	t.Parallel()
	st := &purgeStore{left: 2*purgeBatch + 1}
	svc := New(Config{Store: st, Hub: NewHub(HubConfig{}), Retention: 24 * time.Hour, Now: func() time.Time { return t0 }})
	n, err := svc.Purge(t.Context())
	if err != nil || n != 2*purgeBatch+1 {
		t.Fatalf("Purge: %d, %v", n, err)
	}
	if len(st.cutoffs) != 4 || st.cutoffs[0] != t0.Add(-24*time.Hour-skygate.EventRetentionMargin) {
		t.Fatalf("cutoffs %v", st.cutoffs)
	}
}

// TestNotifyAccounts wakes the waiters of the accounts named, and nobody else's.
func TestNotifyAccounts(t *testing.T) {
	t.Parallel()
	hub := NewHub(HubConfig{})
	leaveA, _ := hub.enter("a")
	defer leaveA()
	leaveB, _ := hub.enter("b")
	defer leaveB()
	allA, a := hub.changedFor("a")
	allB, b := hub.changedFor("b")
	hub.NotifyAccounts([]string{"a", "nobody"})
	<-a
	select {
	case <-b:
		t.Fatal("b's waiters woke for a's events")
	case <-allA:
		t.Fatal("every waiter woke for a's events")
	default:
	}
	hub.Notify() // the head poll: every waiter reads again
	<-allB
}
