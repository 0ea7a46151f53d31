package eventfeed

import (
	"context"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// changesCall is one poll of the feed's changes, answered through reply.
type changesCall struct {
	after int64
	reply chan *skygate.EventFeedChanges
}

// TestHubPollsChangesWhileWaiting: Run reads the changes only while someone waits,
// once per tick, from the last head it saw, and wakes the waiters of the accounts
// that got events, or every waiter when the changes were truncated.
func TestHubPollsChangesWhileWaiting(t *testing.T) {
	t.Parallel()
	ticks := make(chan time.Time)
	calls := make(chan changesCall)
	hub := NewHub(HubConfig{
		Changes: func(_ context.Context, after int64, limit int) (*skygate.EventFeedChanges, error) {
			if limit != changesLimit {
				t.Errorf("limit %d, want %d", limit, changesLimit)
			}
			c := changesCall{after: after, reply: make(chan *skygate.EventFeedChanges)}
			calls <- c
			return <-c.reply, nil
		},
		After: func(time.Duration) <-chan time.Time { return ticks },
	})
	ctx, cancel := context.WithCancel(t.Context())
	stopped := make(chan error, 1)
	go func() { stopped <- hub.Run(ctx) }()

	leaveA, err := hub.enter("a")
	if err != nil {
		t.Fatal(err)
	}
	leaveB, err := hub.enter("b")
	if err != nil {
		t.Fatal(err)
	}
	poll := func(wantAfter int64, ch *skygate.EventFeedChanges) {
		t.Helper()
		ticks <- t0
		c := <-calls
		if c.after != wantAfter {
			t.Fatalf("poll after %d, want %d", c.after, wantAfter)
		}
		c.reply <- ch
		ticks <- t0 // the poll is done when the next tick is taken
	}
	allA, a := hub.changedFor("a")
	_, b := hub.changedFor("b")
	poll(0, &skygate.EventFeedChanges{Head: 7, AccountIDs: []string{"a", "c"}})
	<-a
	select {
	case <-b:
		t.Fatal("b's waiters woke for a's events")
	case <-allA:
		t.Fatal("every waiter woke for a's events")
	default:
	}
	_, a = hub.changedFor("a")
	c := <-calls
	if c.after != 7 {
		t.Fatalf("poll after %d, want the last head 7", c.after)
	}
	c.reply <- &skygate.EventFeedChanges{Head: 7, AccountIDs: []string{}}
	poll(7, &skygate.EventFeedChanges{Head: 9000, Truncated: true, AccountIDs: []string{}})
	<-allA // truncated: every waiter
	select {
	case <-a:
		t.Fatal("an account's channel closed for a truncated poll")
	default:
	}
	c = <-calls
	if c.after != 9000 {
		t.Fatalf("poll after %d, want the truncated head 9000", c.after)
	}
	leaveA()
	leaveB()
	c.reply <- &skygate.EventFeedChanges{Head: 9000, AccountIDs: []string{}}
	cancel()
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
}

// TestWaitersPerProcess: long-polls beyond the process's bound are refused at once,
// whatever their account, and a returned wait frees its place.
func TestWaitersPerProcess(t *testing.T) {
	t.Parallel()
	hub := NewHub(HubConfig{MaxWaiters: 2})
	leaveA, err := hub.enter("a")
	if err != nil {
		t.Fatal(err)
	}
	leaveB, err := hub.enter("b")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hub.enter("c"); err != ErrServerBusy {
		t.Fatalf("third waiter: %v, want ErrServerBusy", err)
	}
	leaveA()
	leaveA() // a second call is harmless
	leaveC, err := hub.enter("c")
	if err != nil {
		t.Fatalf("after one left: %v", err)
	}
	leaveB()
	leaveC()
	if n := hub.Waiters(); n != 0 {
		t.Fatalf("%d waiters left", n)
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
