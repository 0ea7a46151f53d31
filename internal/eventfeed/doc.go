// Package eventfeed serves the events API: an account's outbox read in feed order
// through opaque cursors, each event exactly the envelope its webhook delivery
// carries, with long-polls that wake as soon as a matching event commits.
//
// It owns the cursor format and its expiry (retention), the type filter's rules, and
// the waiting: Hub wakes the long-polls of this process when a store in this process
// commits events (skygate stores' OnEvents) and, while any long-poll waits, polls the
// feed head at a short interval to learn of events that other replicas wrote — one
// query per replica per interval, however many wait. Hub.Drain ends every wait at
// once when the process shuts down.
package eventfeed
