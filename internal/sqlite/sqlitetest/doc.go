// Package sqlitetest owns the SQLite fixture of tests: MustOpen gives a test a fresh,
// migrated store on a file of its own, copied from one database migrated once per
// test binary, and closes it when the test ends.
//
// It sits beside the engine so that internal/storetest, the suite both engines pass,
// names neither of them.
package sqlitetest
