// Package storetest holds the conformance suite of skygate.Store and the helpers that
// tests use on any store.
//
// The MustCreate factories insert valid rows with defaults that options may override.
// MustHoldNoneInClear and RunLegacyDataTest serve the engines' own tests of what they
// write to their tables. The package imports only the root package and the standard
// library: the fixtures that give a test a fresh, migrated store of an engine live
// beside it, sqlitetest.MustOpen in internal/sqlite/sqlitetest and pgtest.MustOpen
// (skipped when SKYGATE_TEST_DATABASE_URL is unset) in internal/postgres/pgtest, and
// sealtest.New in internal/seal/sealtest gives a store's sealer.
//
// The suite is this package's test code, one _test.go file per resource: TestSQLite
// and TestPostgres run every case on both engines, so that they keep one contract, and
// it is built into no other package. Run it with go test ./internal/storetest, with
// SKYGATE_TEST_DATABASE_URL set for PostgreSQL.
//
// Only tests import this package: it imports "testing".
package storetest
