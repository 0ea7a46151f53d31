package eventfeed

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/seal/sealtest"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// fakeStore is a feed in memory; every EventFeed call is reported on reads, if set.
type fakeStore struct {
	mu     sync.Mutex
	events []*skygate.Event
	reads  chan skygate.EventFeedQuery
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

func (f *fakeStore) EventFeedChanges(_ context.Context, after int64, limit int) (*skygate.EventFeedChanges, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := &skygate.EventFeedChanges{Head: after, AccountIDs: []string{}}
	for _, e := range f.events {
		if e.Seq > after && !slices.Contains(ch.AccountIDs, e.AccountID) {
			ch.AccountIDs = append(ch.AccountIDs, e.AccountID)
		}
		ch.Head = max(ch.Head, e.Seq)
	}
	if int(ch.Head-after) >= limit {
		ch.AccountIDs, ch.Truncated = []string{}, true
	}
	return ch, nil
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
	f.hub = NewHub(HubConfig{Changes: f.store.EventFeedChanges, PerAccount: perAccount})
	f.svc = New(Config{Store: f.store, Hub: f.hub, Cursors: sealtest.New(t), Retention: 30 * 24 * time.Hour,
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

// TestCursorRoundTrip: a cursor opens for its account as it was, from short URL-safe
// text.
func TestCursorRoundTrip(t *testing.T) {
	t.Parallel()
	f := setup(t, 0)
	for _, c := range []Cursor{{Pos: 12345, Since: t0}, {Pos: 0, Since: t0}, {Pos: 1 << 62, Since: t0.Add(100 * 365 * 24 * time.Hour)}} {
		text := f.svc.EncodeCursor("acc", c)
		got, err := f.svc.DecodeCursor("acc", text)
		if err != nil || got != c {
			t.Fatalf("DecodeCursor(%q) = %+v, %v; want %+v", text, got, err, c)
		}
		if len(text) > maxCursorLen || strings.Trim(text, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
			t.Fatalf("cursor %q is not short base64url", text)
		}
	}
}

// TestCursorRejects: a cursor changed in any way, cut short, or issued to another
// account (or by another key) is 400, as is one from the future.
func TestCursorRejects(t *testing.T) {
	t.Parallel()
	f := setup(t, 0)
	good := f.svc.EncodeCursor("acc", Cursor{Pos: 7, Since: t0})
	raw, err := base64.RawURLEncoding.DecodeString(good)
	if err != nil {
		t.Fatal(err)
	}
	flipped := bytes.Clone(raw)
	flipped[len(flipped)/2] ^= 1
	otherKey := New(Config{Cursors: sealtest.New(t)}).EncodeCursor("acc", Cursor{Pos: 7, Since: t0})
	for name, text := range map[string]string{
		"tampered":          base64.RawURLEncoding.EncodeToString(flipped),
		"truncated":         good[:len(good)-4],
		"truncated to none": good[:8],
		"another account's": f.svc.EncodeCursor("other", Cursor{Pos: 7, Since: t0}),
		"another key's":     otherKey,
		"plain, unsealed":   base64.RawURLEncoding.EncodeToString([]byte("1.7.1772366400000")),
		"too long":          good + strings.Repeat("A", maxCursorLen),
		"from the future":   f.svc.EncodeCursor("acc", Cursor{Pos: 7, Since: t0.Add(time.Hour)}),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := f.svc.Read(t.Context(), Query{AccountID: "acc", After: text})
			var e *skygate.Error
			if !errors.As(err, &e) || e.Code != skygate.CodeBadRequest || len(e.Fields) != 1 || e.Fields[0].Field != "after" {
				t.Fatalf("Read: %v, want a 400 naming after", err)
			}
		})
	}
}

func TestReadRejects(t *testing.T) {
	t.Parallel()
	f := setup(t, 0)
	old := f.svc.EncodeCursor("acc", Cursor{Pos: 1, Since: t0.Add(-31 * 24 * time.Hour)})
	for _, tt := range []struct {
		name string
		q    Query
		code string
	}{
		{"not base64", Query{After: "!!"}, skygate.CodeBadRequest},
		{"not a cursor", Query{After: "aGVsbG8"}, skygate.CodeBadRequest},
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
	if len(p.Events) != 1 || p.Events[0] != a || p.Next != (Cursor{Pos: a.Seq, Since: a.CreatedAt}) ||
		mustDecode(t, f.svc, "acc", p.NextCursor) != p.Next {
		t.Fatalf("first page: %+v", p)
	}
	p = mustRead(t, f.svc, Query{AccountID: "acc", After: p.NextCursor, Types: []string{skygate.EventWebhookTest}, Limit: 2})
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

// mustDecode opens the account's cursor and fails on an error.
func mustDecode(tb testing.TB, svc *Service, accountID, cursor string) Cursor {
	tb.Helper()
	c, err := svc.DecodeCursor(accountID, cursor)
	if err != nil {
		tb.Fatalf("DecodeCursor(%q): %v", cursor, err)
	}
	return c
}

// TestReadNearRetentionEdge: a reader that starts without after on events just within
// the retention gets a full page whose cursor stands for its last event, and can read
// on with it seconds later, then for up to half the purge margin; the events it has
// yet to read, now past the retention, still come.
func TestReadNearRetentionEdge(t *testing.T) {
	t.Parallel()
	f := setup(t, 0)
	const retention = 30 * 24 * time.Hour
	at := t0.Add(-retention + 2*time.Second)
	a := f.store.add("acc", skygate.EventWebhookTest, at)
	b := f.store.add("acc", skygate.EventWebhookTest, at)
	p := mustRead(t, f.svc, Query{AccountID: "acc", Limit: 1})
	if len(p.Events) != 1 || p.Events[0] != a || p.Next.Since != at {
		t.Fatalf("first page: %+v", p)
	}
	f.now = t0.Add(3 * time.Second)
	if p := mustRead(t, f.svc, Query{AccountID: "acc", After: p.NextCursor, Limit: 1}); len(p.Events) != 1 || p.Events[0] != b {
		t.Fatalf("3 s later: %+v", p.Events)
	}
	f.now = at.Add(retention + skygate.EventRetentionMargin/2)
	if p := mustRead(t, f.svc, Query{AccountID: "acc", After: p.NextCursor, Limit: 1}); len(p.Events) != 1 || p.Events[0] != b {
		t.Fatalf("half the margin later: %+v", p.Events)
	}
	f.now = f.now.Add(time.Millisecond)
	_, err := f.svc.Read(t.Context(), Query{AccountID: "acc", After: p.NextCursor, Limit: 1})
	if code := skygate.ErrorCode(err); code != skygate.CodeCursorExpired {
		t.Fatalf("past half the margin: %v, want %s", err, skygate.CodeCursorExpired)
	}
	if cutoff := f.now.Add(-retention - skygate.EventRetentionMargin); !cutoff.Before(at) {
		t.Fatalf("the purge cutoff %v has reached the unread event of %v", cutoff, at)
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
