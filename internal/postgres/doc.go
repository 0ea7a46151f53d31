// Package postgres is the PostgreSQL engine of skygate.Store, for replicated
// deployments. It owns its SQL, written for PostgreSQL as constants beside the methods
// that run them ($n placeholders; FOR UPDATE, SKIP LOCKED and ON CONFLICT where rows
// are claimed or keys decided; arrays with unnest or = ANY where a statement carries a
// variable number of rows), the connection pool settings, the schema migrations (run
// under an advisory lock so replicas starting together do not race) and the mapping
// of SQLSTATE codes to domain codes. The Go flow around its statements is
// internal/sqlstore's, shared with internal/sqlite: each method passes its SQL to
// it, and the store's sqlstore.DB (tx.go) says how this engine runs it.
//
// Events get their position in the outbox's feed after their commit (events.go), so
// that writers of events need not commit one at a time. A transaction that enqueued
// webhook deliveries calls the OnDeliveries function after its commit.
//
// It uses github.com/jackc/pgx/v5 through its database/sql driver. Times are stored as
// timestamptz, which keeps microseconds, in UTC.
package postgres
