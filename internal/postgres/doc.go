// Package postgres is the PostgreSQL engine of skygate.Store, for replicated
// deployments. It owns the connection pool settings, the PostgreSQL schema migrations
// (run under an advisory lock so replicas starting together do not race) and the
// mapping of SQLSTATE codes to domain codes; the queries themselves live in
// internal/sqlstore.
//
// It uses github.com/jackc/pgx/v5 through its database/sql driver. Times are stored as
// timestamptz, which keeps microseconds.
package postgres
