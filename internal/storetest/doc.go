// Package storetest is the conformance suite of skygate.Store and the helpers that give
// tests an isolated store.
//
// RunTests is run by every engine (internal/sqlite, internal/postgres) so that they
// keep one contract. MustSQLite and MustPostgres give any package's tests a fresh,
// migrated store that is removed when the test ends; MustPostgres skips the test when
// SKYGATE_TEST_DATABASE_URL is unset. The MustCreate factories insert valid rows with
// defaults that options may override.
//
// Only tests import this package: it imports "testing", and it is the one package
// besides cmd that names both engines.
package storetest
