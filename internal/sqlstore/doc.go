// Package sqlstore holds what the two engines of skygate.Store, internal/sqlite and
// internal/postgres, share: the scanning of rows into domain types and the column
// scanners (shared.go, rows.go, scan.go, bookingcols.go), the sealing of passengers'
// personal data and of idempotency records (sealed.go), and the mapping of driver
// errors to domain codes (Interpret). It holds no SQL and imports no driver: each
// engine writes its own statements and classifies its driver's errors.
//
// Every time is stored in UTC truncated to the microsecond, the precision both engines
// keep; the scanners accept both int64 unix microseconds (SQLite) and timestamps
// (PostgreSQL). Lists of strings are stored as JSON text.
package sqlstore
