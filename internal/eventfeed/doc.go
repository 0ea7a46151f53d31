// Package eventfeed serves the events API: an account's outbox read in feed order
// through opaque cursors, each event exactly the envelope its webhook delivery
// carries, with long-polls that wake as soon as a matching event commits.
//
// It owns the cursor format (sealed, bound to the account) and its expiry, the type
// filter's rules, and the waiting: Hub wakes the long-polls of an account when a store
// in this process commits its events (skygate stores' OnEvents) and, while any
// long-poll waits, polls the feed's changes at a short interval to learn whose events
// other replicas wrote — one bounded query per replica per interval, however many
// wait, waking only the accounts named. Hub.Drain ends every wait at once when the
// process shuts down.
package eventfeed
