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
// After, created at or after Since (the retention's start, so that a reader never gets
// an event that is about to be purged), in Seq order, of the types in Types (every type
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

// EventFeedStore reads the outbox as the events API serves it and purges it. Every
// tenant method takes the account id. Event (one event by id) is BookingStore's.
type EventFeedStore interface {
	// EventFeed returns a page of q.AccountID's events (see EventFeedQuery and
	// EventFeedPage). The page and its head are read from one consistent state of the
	// feed: on an engine that positions events after their commit, it first gives
	// every committed event a position (as EventsAfter does), so it may write.
	EventFeed(ctx context.Context, q EventFeedQuery) (*EventFeedPage, error)
	// EventFeedHead returns the position of the newest event of every account that has
	// one, or 0 for an empty feed, after positioning committed events like EventFeed.
	// It spans every account, so it takes no account id: it serves the in-process
	// waker of long-polls, which compares it with its last value to learn that other
	// replicas wrote events, and must never answer a tenant.
	EventFeedHead(ctx context.Context) (int64, error)
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
// cursor is refused once it is older than the retention, and an event is purged only
// a margin later, so that a cursor still accepted never silently skips an event that
// was purged after the cursor was issued.
const EventRetentionMargin = time.Hour
