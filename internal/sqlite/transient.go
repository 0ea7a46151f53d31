package sqlite

import (
	"errors"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Transient reports whether err is a lock that outlasted the busy timeout
// (SQLITE_BUSY, SQLITE_LOCKED): the request may succeed if retried, so the HTTP layer
// answers 503 with Retry-After rather than 500.
func Transient(err error) bool {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code() & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return true
	}
	return false
}
