// Package sqlite is the SQLite engine of skygate.Store, for a single node and for
// development. It owns its SQL, written for SQLite as constants beside the methods
// that run them ("?" placeholders, numbered where an argument is used twice; a loop
// of one plain statement, or json_each over a JSON array argument, where a statement
// concerns a variable number of rows), the database file's connection settings, the
// schema migrations and the mapping of SQLite error codes to domain codes. The Go flow
// around its statements is internal/sqlstore's, shared with internal/postgres: each
// method passes its SQL to it, and the store's sqlstore.DB (tx.go) says how this
// engine runs it.
//
// One node: every write transaction goes through one writer connection, so writers
// queue in Go instead of failing with SQLITE_BUSY, and reads inside a write
// transaction need no locks; reads use a pool of query-only connections that WAL lets
// run beside the writer. The file is in WAL mode with synchronous=FULL and a busy
// timeout: a write is answered only once it is durable. Concurrent write transactions
// share one commit (commit.go), and each connection keeps its prepared statements
// (stmtcache.go); SQLite's automatic checkpoint keeps the WAL short.
//
// It uses the pure-Go modernc.org/sqlite driver. Times are stored as INTEGER unix
// microseconds in UTC. An event's position in the outbox's feed is its seq, assigned
// at insert: the single writer commits events in that order.
package sqlite
