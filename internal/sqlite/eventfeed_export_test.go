package sqlite

// EventFeedStatements are the events API's reads of an account's feed, each with
// arguments to plan it with.
var EventFeedStatements = map[string][]any{
	eventFeedSQL.Page:  {"acc", 0, 0, 100},
	eventFeedSQL.Typed: {"acc", 0, 0, `["webhook.test"]`, 100},
	eventFeedSQL.Head:  {"acc"},
}

// EventPurgeStatements are the retention purge's statements with their arguments.
var EventPurgeStatements = map[string][]any{
	purgeEventDeliveries: {1000, 0},
	purgeEvents:          {1000, 0},
}
