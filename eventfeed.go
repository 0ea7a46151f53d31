package skygate

// This file holds the events API's side of the outbox (CONTRACT §5, issue 37): an
// account reads its own events in feed order, the same envelopes its webhook
// deliveries carry, and the operator purges events past their retention.

import (
	"context"
	"slices"
	"time"
)

// EventTypes are the event types the service emits, in the order the documentation
// lists them: the ones a subscription may receive, then the notices that are never
// delivered. A reader's type filter must name only these.
var EventTypes = append(SubscribableEventTypes(), EventWebhookSubscriptionDisabled)

// KnownEventType reports whether typ is one of EventTypes.
func KnownEventType(typ string) bool { return slices.Contains(EventTypes, typ) }

// EventFeedQuery asks for a page of one account's feed: events with Seq greater than
// After, created at or after Since (the oldest time the reader may still read, so
// that it never gets an event that is about to be purged), in Seq order, of the types in Types (every type
// when empty), at most Limit (which must be positive).
type EventFeedQuery struct {
	AccountID string
	After     int64
	Since     time.Time
	Types     []string
	Limit     int
}

// EventFeedPage is a page of an account's feed. Next is the position to read on from:
// the last event's Seq when the page is full (more may follow at once), else the feed
// head, a position such that no event of the account at or below it can still appear,
// so that a reader whose filter skipped every recent event does not read them again.
// Next is never below the query's After.
type EventFeedPage struct {
	Events []*Event
	Next   int64
}

// EventFeedChanges is what entered the feed after a position (EventFeedStore's
// EventFeedChanges). Head is never below the position asked after. When Truncated is
// false, AccountIDs are the distinct accounts of the events in (after, Head], in no
// particular order; when true, too many events came to list them, and AccountIDs is
// empty.
type EventFeedChanges struct {
	Head       int64
	AccountIDs []string
	Truncated  bool
}

// EventFeedStore reads the outbox as the events API serves it and purges it. Every
// tenant method takes the account id. Event (one event by id) is BookingStore's.
type EventFeedStore interface {
	// EventFeed returns a page of q.AccountID's events (see EventFeedQuery and
	// EventFeedPage). The page and its head are read from one consistent state of the
	// feed: on an engine that positions events after their commit, it first gives
	// a bounded batch of the committed events without one a position, so it may
	// write; events beyond the batch appear in a later read, with larger positions,
	// and a background loop of that engine positions them meanwhile.
	EventFeed(ctx context.Context, q EventFeedQuery) (*EventFeedPage, error)
	// EventFeedChanges returns the feed head and the accounts whose events have a
	// position in (after, head], after positioning a bounded batch of committed events
	// like EventFeed. It reads at most limit events past after: when more are there,
	// Truncated is set, AccountIDs is empty and Head is the newest position, so that
	// the caller wakes every reader and goes on from the head. It spans every account,
	// so it takes no account id: it serves the in-process waker of long-polls, which
	// calls it with its last head to learn whose events other replicas wrote, and must
	// never answer a tenant.
	EventFeedChanges(ctx context.Context, after int64, limit int) (*EventFeedChanges, error)
	// PurgeEvents deletes up to limit events of every account created before before,
	// oldest first, with their webhook deliveries and the deliveries' attempts
	// (deliveries name their event without a foreign key), and returns how many
	// events it deleted. It reads a bounded stretch of the feed's oldest events per
	// call, so a caller repeats it until it returns 0. Like WebhookBacklog it spans
	// every account and takes no account id: it is the operator's retention, run by a
	// background loop, and must never answer a tenant.
	PurgeEvents(ctx context.Context, before time.Time, limit int) (int, error)
}

// EventRetentionMargin is how long after its retention an event may be purged: a
// cursor is refused once it is older than the retention and half the margin, and an
// event is purged only a whole margin after its retention, so that a cursor still
// accepted never silently skips an event that was purged after the cursor was issued,
// and a reader that starts at the oldest event kept still has half the margin to read
// on.
const EventRetentionMargin = time.Hour
