// Package sqlstore holds what the two engines of skygate.Store, internal/sqlite and
// internal/postgres, share: the Go flow around their SQL. An engine describes itself
// once as a DB (db.go: its pools and transactions, the stored form of a time and of a
// list, its driver's error classification, its writers of events and audit records);
// the flows take a DB and the engine's statements as arguments, one file a resource
// (identity.go, bookings.go, deliveries.go, esims.go, …), with small generic helpers
// for the common shapes (Get, All, ListPage, Exec, WriteRow). Beside them are the
// scanning of rows into domain types (rows.go, scan.go, bookingcols.go), the sealing
// of passengers' personal data and of idempotency records (sealed.go), and the mapping
// of driver errors to domain codes (Interpret).
//
// It holds no SQL and imports no driver, and it never asks which engine it runs on:
// each engine writes its own statements, for that engine, and passes them in; where
// the engines' flows truly differ (locks, the eSIM pool's allocation, a charge, the
// outbox's writes), the engine passes a function.
//
// Every time is stored in UTC truncated to the microsecond, the precision both engines
// keep; the scanners accept both int64 unix microseconds (SQLite) and timestamps
// (PostgreSQL). Lists of strings are stored as JSON text.
package sqlstore
