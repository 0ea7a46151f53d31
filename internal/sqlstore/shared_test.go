package sqlstore

import (
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// fakeDriverError stands for a driver error; fakeClassify classifies it by its
// kind, the way engines classify by driver codes.
type fakeDriverError struct{ kind Violation }

func (e *fakeDriverError) Error() string { return "driver: SQLSTATE 23505 duplicate key" }

func fakeClassify(err error) Violation {
	var e *fakeDriverError
	if errors.As(err, &e) {
		return e.kind
	}
	return NoViolation
}

// stateError is a driver error that reports its SQLSTATE, as pgx's PgError does.
type stateError struct{ state string }

func (e *stateError) Error() string    { return "driver: SQLSTATE " + e.state }
func (e *stateError) SQLState() string { return e.state }

func TestInterpret(t *testing.T) {
	t.Parallel()
	full := Outcome{Op: "create thing", Conflict: "thing exists", NotFound: "owner not found"}
	bare := Outcome{Op: "list things"}
	tests := []struct {
		name    string
		o       Outcome
		err     error
		code    string
		message string
	}{
		{"nil", full, nil, "", ""},
		{"no rows", full, sql.ErrNoRows, skygate.CodeNotFound, "owner not found"},
		{"wrapped no rows", full, fmt.Errorf("scan: %w", sql.ErrNoRows), skygate.CodeNotFound, "owner not found"},
		{"unique", full, &fakeDriverError{UniqueViolation}, skygate.CodeConflict, "thing exists"},
		{"foreign key", full, &fakeDriverError{ForeignKeyViolation}, skygate.CodeNotFound, "owner not found"},
		{"other driver error", full, &fakeDriverError{NoViolation}, skygate.CodeInternal, "an internal error occurred"},
		{"unique without a message", bare, &fakeDriverError{UniqueViolation}, skygate.CodeInternal, "an internal error occurred"},
		{"no rows without a message", bare, sql.ErrNoRows, skygate.CodeInternal, "an internal error occurred"},
		{"NUL byte in a lookup", full, fmt.Errorf("get: %w", &stateError{"22021"}), skygate.CodeNotFound, "owner not found"},
		{"NUL byte in a filter", bare, &stateError{"22021"}, skygate.CodeBadRequest, "the request holds text that cannot be stored, such as a NUL byte"},
		{"other SQLSTATE", bare, &stateError{"42P01"}, skygate.CodeInternal, "an internal error occurred"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := Interpret("fake", fakeClassify, tt.o, tt.err)
			if got := skygate.ErrorCode(err); got != tt.code {
				t.Fatalf("code = %q (%v), want %q", got, err, tt.code)
			}
			if got := skygate.ErrorMessage(err); got != tt.message {
				t.Errorf("message = %q, want %q", got, tt.message)
			}
			if tt.err != nil && !errors.Is(err, tt.err) && tt.code != skygate.CodeNotFound {
				t.Errorf("the driver error is not kept as the cause of %v", err)
			}
			if tt.code == skygate.CodeInternal && !strings.Contains(err.Error(), tt.o.Op) {
				t.Errorf("internal error %q does not name the operation", err)
			}
		})
	}
}

func TestPageArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		page          skygate.Page
		limit, offset int64
	}{
		{skygate.Page{Limit: 10, Offset: 20}, 10, 20},
		{skygate.Page{}, math.MaxInt64, 0},
		{skygate.Page{Limit: -1, Offset: -5}, math.MaxInt64, 0},
	}
	for _, tt := range tests {
		limit, offset := PageArgs(tt.page)
		if limit != tt.limit || offset != tt.offset {
			t.Errorf("PageArgs(%+v) = %d, %d; want %d, %d", tt.page, limit, offset, tt.limit, tt.offset)
		}
	}
}

func TestTimeCol(t *testing.T) {
	t.Parallel()
	want := time.Date(2025, 3, 14, 14, 9, 26, 535897000, time.UTC)
	tests := []struct {
		name string
		src  any
	}{
		{"unix microseconds", want.UnixMicro()},
		{"timestamp in another zone", want.Add(932 * time.Nanosecond).In(time.FixedZone("UTC+1", 3600))},
	}
	for _, tt := range tests {
		var got time.Time
		if err := (timeCol{&got}).Scan(tt.src); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got != want {
			t.Errorf("%s: got %v, want %v", tt.name, got, want)
		}
	}
	var got time.Time
	if err := (timeCol{&got}).Scan("2025-03-14"); err == nil {
		t.Error("scanning text into a time succeeded")
	}
}
