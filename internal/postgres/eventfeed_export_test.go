package postgres

// EventFeedStatements are the events API's reads of an account's feed, each with
// arguments to plan it with.
var EventFeedStatements = map[string][]any{
	eventFeedSQL.Page:  {"acc", 0, "2026-01-01T00:00:00Z", 100},
	eventFeedSQL.Typed: {"acc", 0, "2026-01-01T00:00:00Z", []string{"webhook.test"}, 100},
	eventFeedSQL.Head:  {"acc"},
}

// EventPurgeQuery is the retention purge's statement; it takes a time and a limit.
const EventPurgeQuery = purgeEvents

// LockPositions is the advisory lock that positioning events holds; PositionBatch is
// how many events one request positions at most.
const (
	LockPositions = lockPositions
	PositionBatch = positionBatch
)

// EventFeedChangesQuery is the head poll's read of the feed's changes; it takes a
// position and a limit.
var EventFeedChangesQuery = eventFeedChangesSQL.Changes
