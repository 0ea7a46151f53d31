// Package sqlstore implements skygate.Store over database/sql for SQLite, and shares
// with internal/postgres, which writes its own SQL, the scanning of rows, the sealing
// of personal data and idempotency records, and the mapping of driver errors
// (shared.go).
//
// It owns the queries, the transaction helpers and the translation of driver errors into
// domain codes. What differs between engines lives in a Dialect that the engine package
// (internal/sqlite) supplies: the placeholder style, how a time is written, how a
// driver error is classified, and how a table is locked for the rest of a transaction.
// This package imports no driver.
//
// Queries are written once with "?" placeholders and registered at package init with
// newStmt; New rebinds them for the dialect, so no query is rewritten per call. A new
// resource is one more file that declares its statements and methods.
//
// Every time is stored in UTC truncated to the microsecond, the precision both engines
// keep; the Create methods normalise their argument's times the same way so that what
// the caller holds equals what a later read returns. Lists of strings are stored as
// JSON text.
//
// Passengers' personal data and the fingerprints and bodies of idempotency records are
// sealed with the skygate.Sealer the store is opened with (sealed.go); the rest of a
// row is in clear.
package sqlstore
