// Package pgtest owns the PostgreSQL fixture of tests: MustOpen gives a test a fresh,
// migrated store, and MustDSN an empty schema, in the database named by
// SKYGATE_TEST_DATABASE_URL; both skip the test when the variable is unset. Each test
// works in a schema of its own with a random name, dropped when the test ends, so
// tests and packages may share one database.
//
// It sits beside the engine so that internal/storetest, the suite both engines pass,
// names neither of them.
package pgtest
