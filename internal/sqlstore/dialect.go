package sqlstore

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"time"
)

// Placeholder is how an engine numbers query parameters.
type Placeholder int

const (
	// Question is SQLite's "?".
	Question Placeholder = iota
	// Dollar is PostgreSQL's "$1", "$2", ….
	Dollar
)

// Violation is what a driver error means to the store. Engines classify by the
// driver's error codes, never by the error text.
type Violation int

const (
	// NoViolation is any error that is not a constraint violation.
	NoViolation Violation = iota
	// UniqueViolation is a duplicate primary key or unique column.
	UniqueViolation
	// ForeignKeyViolation is a reference to a row that does not exist.
	ForeignKeyViolation
)

// Dialect is what the shared store needs to know about one SQL engine.
type Dialect struct {
	// Name identifies the engine in error messages.
	Name string
	// Placeholder is the parameter style the statements are rebound to.
	Placeholder Placeholder
	// Classify reports which constraint, if any, err violated.
	Classify func(err error) Violation
	// EncodeTime turns a time, already UTC and truncated to the microsecond, into the
	// value stored in a time column. Scanning accepts both int64 unix microseconds
	// and time.Time, so engines may choose either.
	EncodeTime func(t time.Time) any
	// TimeType is the SQL type of a time column as EncodeTime stores it, for the CASTs
	// of statements that pass times where the engine cannot infer their type.
	TimeType string
	// LockTable returns a statement that keeps other writers of table out until the
	// transaction ends, while readers go on; "" when the engine serialises writers
	// anyway (SQLite's single writer connection).
	LockTable func(table string) string
	// ReadIsolation is the isolation of read-only transactions that must see one
	// snapshot, such as a page and its total.
	ReadIsolation sql.IsolationLevel
	// WritableCTE says the engine runs INSERTs inside WITH as parts of one statement
	// (PostgreSQL; SQLite does not), so that a write of several tables can be one
	// statement, and one round trip, instead of a transaction of several (see
	// createBookingAtOnce).
	WritableCTE bool
	// GroupCommit runs concurrent write transactions in one database transaction, each
	// in a savepoint (see commit.go). For engines with a single writer connection.
	GroupCommit bool
	// AfterCommit, when set with GroupCommit, runs on the committer's goroutine after
	// each group commit, once the batch's callers have their outcomes and before the
	// next batch begins: the writer pool (write) is idle then and nothing can commit
	// until it returns. It must be quick; it may not block on other writers.
	AfterCommit func(ctx context.Context, write *sql.DB)
}

// stmt names a registered statement; Store.q returns its text for the dialect.
type stmt int

// registry holds every statement in "?" form, in registration order.
var registry []string

// limitArg is the LIMIT clause of a statement whose row count is an argument. SQLite's
// planner reads a bare bound LIMIT and then marks the statement to be compiled again
// whenever that argument is bound, which is every execution: a claim of due bookings
// or of pool profiles parsed and planned its SQL anew each time. Behind the CAST the
// planner does not look at the value, so the cached statement stays compiled;
// PostgreSQL takes the argument as the bigint its LIMIT expects.
const limitArg = `LIMIT CAST(? AS BIGINT)`

// newStmt registers a query written with "?" placeholders. It is only called from
// package-level variable declarations, so the registry is complete before New runs.
func newStmt(query string) stmt {
	registry = append(registry, query)
	return stmt(len(registry) - 1)
}

// rebind rewrites the "?" placeholders of query for p. Question marks inside quoted
// strings and identifiers are left alone.
func rebind(p Placeholder, query string) string {
	if p == Question {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	n := 0
	var quote byte
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '?':
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// utc is the form in which every time is stored and returned.
func utc(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// placeholders returns n comma-separated "?" for an IN list or a VALUES row; queries
// built with it are rebound with rebind before use.
func placeholders(n int) string { return commaList("?", n) }

// commaList returns n copies of item separated by ", ": placeholders, or the rows of
// a VALUES list.
func commaList(item string, n int) string {
	if n <= 0 {
		return ""
	}
	return strings.Repeat(item+", ", n-1) + item
}
