package eventfeed

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/skygate/skygate"
)

// Limits of a read.
const (
	// MaxWait bounds a long-poll.
	MaxWait = 30 * time.Second
	// DefaultLimit and MaxLimit bound a page, as every list of the API does.
	DefaultLimit = 100
	MaxLimit     = 500
	// maxSkew is how far in the future a cursor's time may be (clocks of replicas
	// differ a little); a later one was not issued by this service.
	maxSkew = 5 * time.Minute
)

// Store is what the service reads: the feed and single events.
type Store interface {
	skygate.EventFeedStore
	Event(ctx context.Context, accountID, eventID string) (*skygate.Event, error)
}

// Config configures a Service.
type Config struct {
	Store Store
	Hub   *Hub
	// Cursors seals cursors (required): a *seal.Box of a subkey of the master key
	// (seal.PurposeEventCursor), the same on every replica, so that any replica opens
	// the cursors of every other.
	Cursors skygate.Sealer
	// Retention is how long events are kept (SKYGATE_EVENT_RETENTION); a cursor older
	// than that and half of skygate.EventRetentionMargin is CodeCursorExpired.
	Retention time.Duration
	Now       skygate.Clock
	// After is time.After unless a test injects its clock.
	After func(time.Duration) <-chan time.Time
}

// Service reads accounts' feeds.
type Service struct {
	store     Store
	hub       *Hub
	cursors   skygate.Sealer
	retention time.Duration
	now       skygate.Clock
	after     func(time.Duration) <-chan time.Time
}

// New returns the service of c.
func New(c Config) *Service {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.After == nil {
		c.After = time.After
	}
	return &Service{store: c.Store, hub: c.Hub, cursors: c.Cursors, retention: c.Retention, now: c.Now, after: c.After}
}

// Query is a read of an account's feed. After is a cursor (empty: from the oldest
// event kept); Types filters by event type (empty: every type); Limit is 1–MaxLimit
// (0: DefaultLimit); Wait, up to MaxWait, is how long to wait for a matching event
// when none is there yet.
type Query struct {
	AccountID string
	After     string
	Types     []string
	Limit     int
	Wait      time.Duration
}

// Page is an answer: the events, oldest first, and the cursor to read on from, as
// the account's opaque NextCursor (EncodeCursor of Next).
type Page struct {
	Events     []*skygate.Event
	Next       Cursor
	NextCursor string
}

// ErrTooManyWaiters is the refusal of a long-poll of an account that already has
// DefaultPerAccount (HubConfig.PerAccount) of them waiting in this process.
var ErrTooManyWaiters = &skygate.Error{Code: skygate.CodeRateLimited,
	Message: "too many long-polls of this account are waiting; let one return before starting another"}

// ErrServerBusy is the refusal of a long-poll when this process already has
// DefaultMaxWaiters (HubConfig.MaxWaiters) of them waiting, of every account.
var ErrServerBusy = &skygate.Error{Code: skygate.CodeRateLimited,
	Message: "this server has too many long-polls waiting; retry shortly, or read without wait"}

// Read returns a page of the account's feed after q.After. When there is no matching
// event and q.Wait is positive, it waits until one commits, the wait ends, ctx ends
// (the client left) or the hub drains, and then answers what it has: possibly no
// events, always a cursor.
func (s *Service) Read(ctx context.Context, q Query) (*Page, error) {
	if err := s.check(&q); err != nil {
		return nil, err
	}
	var after Cursor
	// Without a cursor the feed starts at the oldest event within the retention; with
	// one, it serves every event the cursor may still read (expiredBefore), so that an
	// accepted cursor never skips one.
	floor := s.retention
	if q.After != "" {
		var err error
		if after, err = s.DecodeCursor(q.AccountID, q.After); err != nil {
			return nil, err
		}
		now := s.now()
		if after.Since.Before(s.expiredBefore(now)) {
			return nil, expiredError(s.retention)
		}
		if after.Since.After(now.Add(maxSkew)) {
			return nil, errMalformedCursor
		}
		floor += skygate.EventRetentionMargin / 2
	}
	fq := skygate.EventFeedQuery{AccountID: q.AccountID, After: after.Pos, Types: q.Types, Limit: q.Limit}
	if q.Wait <= 0 {
		return s.read(ctx, fq, floor)
	}
	leave, err := s.hub.enter(q.AccountID)
	if err != nil {
		return nil, err
	}
	defer leave()
	deadline := s.after(q.Wait)
	for {
		all, mine := s.hub.changedFor(q.AccountID) // before the read: a commit after it wakes this wait
		p, err := s.read(ctx, fq, floor)
		if err != nil || len(p.Events) > 0 {
			return p, err
		}
		select {
		case <-all:
			fq.After = p.Next.Pos
		case <-mine:
			fq.After = p.Next.Pos
		case <-deadline:
			return p, nil
		case <-ctx.Done():
			return p, nil
		case <-s.hub.Drained():
			return p, nil
		}
	}
}

// read returns one page of the events created within floor of now. The next cursor
// stands for the creation time of the last event read when more may follow at once,
// so that a reader catching up on old events sees its cursor expire before they are
// purged; at the head it stands for now.
func (s *Service) read(ctx context.Context, q skygate.EventFeedQuery, floor time.Duration) (*Page, error) {
	q.Since = s.now().Add(-floor)
	p, err := s.store.EventFeed(ctx, q)
	if err != nil {
		return nil, err
	}
	next := Cursor{Pos: p.Next, Since: s.now().UTC()}
	if n := len(p.Events); n > 0 && n >= q.Limit {
		next.Since = p.Events[n-1].CreatedAt
	}
	return &Page{Events: p.Events, Next: next, NextCursor: s.EncodeCursor(q.AccountID, next)}, nil
}

// check validates the query's limit, types and wait, or returns a CodeBadRequest
// naming the parameter.
func (s *Service) check(q *Query) error {
	if q.Limit == 0 {
		q.Limit = DefaultLimit
	}
	if q.Limit < 1 || q.Limit > MaxLimit {
		return skygate.BadParameter("limit", fmt.Sprintf("must be an integer from 1 to %d", MaxLimit))
	}
	if q.Wait < 0 || q.Wait > MaxWait {
		return skygate.BadParameter("wait", "must be a duration from 0s to "+MaxWait.String())
	}
	var unknown []string
	for _, t := range q.Types {
		if !skygate.KnownEventType(t) {
			unknown = append(unknown, t)
		}
	}
	if len(unknown) > 0 {
		return skygate.BadParameter("types", fmt.Sprintf("unknown event types %q; known: %s", unknown, strings.Join(skygate.EventTypes, ", ")))
	}
	return nil
}

// Purge batches.
const (
	purgeBatch = 1000
	// maxPurgeBatches bounds one round of Purge, so that a large backlog (a lowered
	// retention) is worked off over several rounds rather than in one long one.
	maxPurgeBatches = 100
)

// Purge deletes the events created more than the retention plus
// skygate.EventRetentionMargin ago, with their webhook deliveries, in batches, and
// returns how many it deleted. The margin keeps every event that a cursor still
// accepted (expiredBefore: half the margin past the retention) has yet to read. It is the operator's
// maintenance, run every few minutes by every replica; concurrent runs delete each
// event once.
func (s *Service) Purge(ctx context.Context) (int, error) {
	cutoff := s.now().Add(-s.retention - skygate.EventRetentionMargin)
	total := 0
	for range maxPurgeBatches {
		n, err := s.store.PurgeEvents(ctx, cutoff, purgeBatch)
		total += n
		if err != nil || n == 0 {
			return total, err
		}
	}
	return total, nil
}

// Drain ends every long-poll at once and keeps later ones from waiting (Hub.Drain).
func (s *Service) Drain() { s.hub.Drain() }

// Event returns the account's event as stored, or CodeNotFound (another account's
// too). Its JSON form is the body of its webhook deliveries.
func (s *Service) Event(ctx context.Context, accountID, eventID string) (*skygate.Event, error) {
	return s.store.Event(ctx, accountID, eventID)
}
