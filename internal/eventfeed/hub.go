package eventfeed

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/skygate/skygate"
)

// Hub wakes the long-polls of one process. NotifyAccounts (a store's OnEvents) wakes
// the waiters of the accounts whose events a commit in this process wrote; Run polls
// the feed's changes while anyone waits, so that commits of other replicas wake the
// waiters of their accounts within an interval (every waiter when too many events
// came to tell whose). A waiter takes its Changed channels before it reads the
// feed, so a commit between its read and its wait is never missed; a wake-up is only
// a hint to read again.
type Hub struct {
	changes  func(ctx context.Context, after int64, limit int) (*skygate.EventFeedChanges, error)
	interval time.Duration
	after    func(time.Duration) <-chan time.Time
	log      *slog.Logger
	// perAccount bounds the waiters of one account, maxWaiters those of the process.
	perAccount, maxWaiters int

	mu sync.Mutex
	// changed is closed and replaced by each wake-up of every waiter, account's by
	// each wake-up of an account's waiters (it exists while the account has some).
	changed chan struct{}
	account map[string]chan struct{}
	waiting map[string]int
	total   int
	// active tells Run that the first waiter came.
	active  chan struct{}
	drained chan struct{}
	drain   sync.Once
}

// HubConfig configures a Hub.
type HubConfig struct {
	// Changes reads the feed's changes of every account (skygate.EventFeedStore's
	// EventFeedChanges).
	Changes func(ctx context.Context, after int64, limit int) (*skygate.EventFeedChanges, error)
	// Interval is the period of the poll while someone waits (default 250 ms).
	Interval time.Duration
	// PerAccount bounds the concurrent waiters of one account in this process
	// (default DefaultPerAccount).
	PerAccount int
	// MaxWaiters bounds the concurrent waiters of every account in this process
	// (default DefaultMaxWaiters).
	MaxWaiters int
	// After is time.After unless a test injects its clock.
	After func(time.Duration) <-chan time.Time
	Log   *slog.Logger
}

// DefaultPerAccount is the default bound on one account's concurrent long-polls per
// process: enough for a few consumers with a filter each, while one partner cannot
// hold an unbounded number of connections and goroutines.
const DefaultPerAccount = 8

// DefaultMaxWaiters is the default bound on the concurrent long-polls of one process:
// each holds a connection and a goroutine, so many partners together cannot exhaust
// the process, while a replica still serves well over a hundred partners at their
// bound.
const DefaultMaxWaiters = 1000

// changesLimit bounds the events one poll reads to learn whose they are; past it, the
// poll wakes every waiter instead.
const changesLimit = 1000

// NewHub returns a hub; Run must run for other replicas' events to wake its waiters.
func NewHub(c HubConfig) *Hub {
	if c.Interval <= 0 {
		c.Interval = 250 * time.Millisecond
	}
	if c.PerAccount <= 0 {
		c.PerAccount = DefaultPerAccount
	}
	if c.MaxWaiters <= 0 {
		c.MaxWaiters = DefaultMaxWaiters
	}
	if c.After == nil {
		c.After = time.After
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	return &Hub{changes: c.Changes, interval: c.Interval, after: c.After, log: c.Log,
		perAccount: c.PerAccount, maxWaiters: c.MaxWaiters,
		changed: make(chan struct{}), account: map[string]chan struct{}{}, waiting: map[string]int{},
		active:  make(chan struct{}, 1),
		drained: make(chan struct{})}
}

// Notify wakes every waiter: events of accounts not told apart were committed. It
// never blocks.
func (h *Hub) Notify() {
	h.mu.Lock()
	close(h.changed)
	h.changed = make(chan struct{})
	h.mu.Unlock()
}

// NotifyAccounts wakes the waiters of the accounts: their events were committed. It
// never blocks, and wakes nobody else, so that one partner's traffic does not make
// every other partner's long-polls read again.
func (h *Hub) NotifyAccounts(accountIDs []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, id := range accountIDs {
		if ch, ok := h.account[id]; ok {
			close(ch)
			h.account[id] = make(chan struct{})
		}
	}
}

// changedFor returns the channels the next wake-up of every waiter and of the
// account's waiters close. The account must have a waiter (enter).
func (h *Hub) changedFor(accountID string) (all, account <-chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.changed, h.account[accountID]
}

// enter counts a waiter of the account and returns the function that ends its wait,
// or ErrTooManyWaiters when the account already has its bound of waiters, or
// ErrServerBusy when the process has.
func (h *Hub) enter(accountID string) (leave func(), err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.waiting[accountID] >= h.perAccount {
		return nil, ErrTooManyWaiters
	}
	if h.total >= h.maxWaiters {
		return nil, ErrServerBusy
	}
	if h.waiting[accountID]++; h.waiting[accountID] == 1 {
		h.account[accountID] = make(chan struct{})
	}
	if h.total++; h.total == 1 {
		select {
		case h.active <- struct{}{}:
		default:
		}
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			if h.waiting[accountID]--; h.waiting[accountID] == 0 {
				delete(h.waiting, accountID)
				delete(h.account, accountID)
			}
			h.total--
		})
	}, nil
}

// Waiters returns how many long-polls wait now, in this process.
func (h *Hub) Waiters() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.total
}

// Drain ends every wait at once and makes later ones return without waiting: the
// process is shutting down, and a long-poll must not hold the listener's shutdown.
func (h *Hub) Drain() { h.drain.Do(func() { close(h.drained) }) }

// Drained returns a channel closed by Drain.
func (h *Hub) Drained() <-chan struct{} { return h.drained }

// Run polls the feed's changes every interval while anyone waits and wakes the
// waiters of the accounts that got events (every waiter when the changes were
// truncated), until ctx ends (a lifecycle.Service). It reads nothing while nobody
// waits. A failed read is logged and retried at the next interval from the same head:
// waiters then still wake for this process's commits and at the end of their wait.
//
// No commit is missed: each poll covers the positions from the last head it saw to
// the new one, so an event that a waiter's read did not see is in the range of a poll
// whose read came after that waiter's, and hence whose wake-up came after the waiter
// took its channels.
func (h *Hub) Run(ctx context.Context) error {
	var last int64
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-h.active:
		}
		for h.Waiters() > 0 {
			select {
			case <-ctx.Done():
				return nil
			case <-h.after(h.interval):
			}
			ch, err := h.changes(ctx, last, changesLimit)
			if err != nil {
				h.log.WarnContext(ctx, "event feed changes poll failed", "err", err)
				continue
			}
			last = ch.Head
			if ch.Truncated {
				h.Notify()
			} else {
				h.NotifyAccounts(ch.AccountIDs)
			}
		}
	}
}
