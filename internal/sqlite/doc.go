// Package sqlite is the SQLite engine of skygate.Store, for a single node and for
// development. It owns the database file's connection settings, the SQLite schema
// migrations and the mapping of SQLite error codes to domain codes; the queries
// themselves live in internal/sqlstore.
//
// It uses the pure-Go modernc.org/sqlite driver. Writes go through one connection so
// that they queue in Go instead of failing with SQLITE_BUSY; reads use a pool of
// connections that WAL lets run beside the writer. Times are stored as INTEGER unix
// microseconds in UTC.
package sqlite
