package storetest

import (
	"crypto/rand"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// T0 is the suite's base time. It is not UTC and has nanoseconds, so comparing with
// Stored shows that stores return UTC truncated to the microsecond.
var T0 = time.Date(2025, 3, 14, 15, 9, 26, 535897932, time.FixedZone("UTC+1", 3600))

// At returns T0 plus d.
func At(d time.Duration) time.Time { return T0.Add(d) }

// Stored is t as every store keeps it: UTC, truncated to the microsecond.
func Stored(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// NewID returns a random id, unique enough to keep rows of one test apart.
func NewID() string { return strings.ToLower(rand.Text()) }

// WantCode fails the test unless err carries code. For an error that the store
// returns to callers it also checks that the public message does not leak the driver,
// outside the values it quotes: those are the caller's, and a random test name may
// well contain "sql".
func WantCode(tb testing.TB, err error, code string) {
	tb.Helper()
	if got := skygate.ErrorCode(err); got != code {
		tb.Fatalf("error code = %q (%v), want %q", got, err, code)
	}
	msg := strings.ToLower(quoted.ReplaceAllString(skygate.ErrorMessage(err), `""`))
	for _, leak := range []string{"sql", "constraint", "violat", "duplicate key", "no rows"} {
		if strings.Contains(msg, leak) {
			tb.Fatalf("public message %q contains %q", skygate.ErrorMessage(err), leak)
		}
	}
}

// quoted matches a Go-quoted string (%q) in a message.
var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// MustNoError fails the test when err is not nil.
func MustNoError(tb testing.TB, err error, what string) {
	tb.Helper()
	if err != nil {
		tb.Fatalf("%s: %v", what, err)
	}
}

// wantEqual fails the test unless got and want are deeply equal.
func wantEqual[T any](tb testing.TB, what string, got, want T) {
	tb.Helper()
	if !reflect.DeepEqual(got, want) {
		tb.Fatalf("%s:\n got  %+v\n want %+v", what, got, want)
	}
}
