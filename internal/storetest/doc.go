// Package storetest holds the conformance suite of skygate.Store and the helpers that
// give tests an isolated store.
//
// MustSQLite and MustPostgres give any package's tests a fresh, migrated store that is
// removed when the test ends; MustPostgres skips the test when
// SKYGATE_TEST_DATABASE_URL is unset. The MustCreate factories insert valid rows with
// defaults that options may override. MustHoldNoneInClear and RunLegacyDataTest serve
// the engines' own tests of what they write to their tables.
//
// The suite is this package's test code, one _test.go file per resource: TestSQLite
// and TestPostgres run every case on both engines, so that they keep one contract, and
// it is built into no other package. Run it with go test ./internal/storetest, with
// SKYGATE_TEST_DATABASE_URL set for PostgreSQL.
//
// Only tests import this package: it imports "testing", and it is the one package
// besides cmd that names both engines.
package storetest
