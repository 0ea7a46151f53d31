package sqlstore

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

func TestRebind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		p     Placeholder
		query string
		want  string
	}{
		{"question is unchanged", Question, `SELECT a FROM t WHERE a = ? AND b = ?`, `SELECT a FROM t WHERE a = ? AND b = ?`},
		{"dollar numbers in order", Dollar, `INSERT INTO t (a, b, c) VALUES (?, ?, ?)`, `INSERT INTO t (a, b, c) VALUES ($1, $2, $3)`},
		{"no placeholders", Dollar, `SELECT COUNT(*) FROM t`, `SELECT COUNT(*) FROM t`},
		{"string literal kept", Dollar, `SELECT '?' FROM t WHERE a = ?`, `SELECT '?' FROM t WHERE a = $1`},
		{"escaped quote in literal", Dollar, `SELECT 'it''s ?' WHERE a = ? AND b = ?`, `SELECT 'it''s ?' WHERE a = $1 AND b = $2`},
		{"quoted identifier kept", Dollar, `SELECT "odd?name" FROM t WHERE a = ?`, `SELECT "odd?name" FROM t WHERE a = $1`},
		{"ten or more", Dollar, strings.Repeat("?,", 10) + "?", "$1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := rebind(tt.p, tt.query); got != tt.want {
				t.Errorf("rebind(%q)\n got  %q\n want %q", tt.query, got, tt.want)
			}
		})
	}
}

// TestNewRebindsEveryStatement checks that New prepares one text per registered
// statement, so that s.q never rewrites a query per call.
func TestNewRebindsEveryStatement(t *testing.T) {
	t.Parallel()
	s := New(Dialect{Name: "test", Placeholder: Dollar}, nil, nil, nil)
	if len(s.stmts) != len(registry) || len(registry) == 0 {
		t.Fatalf("%d statements prepared for %d registered", len(s.stmts), len(registry))
	}
	for i, q := range s.stmts {
		if strings.Contains(q, "?") {
			t.Errorf("statement %d still has a '?': %s", i, q)
		}
	}
	if got, want := s.q(qDeleteKey), `DELETE FROM signing_keys WHERE kid = $1`; got != want {
		t.Errorf("q(qDeleteKey) = %q, want %q", got, want)
	}
}

// TestNoBareBoundLimit checks that every registered statement with a LIMIT argument
// writes it as limitArg: a bare "LIMIT ?" makes SQLite compile the statement again on
// every execution.
func TestNoBareBoundLimit(t *testing.T) {
	t.Parallel()
	bare := regexp.MustCompile(`(?i)\bLIMIT\s+\?`)
	for i, q := range registry {
		if bare.MatchString(q) {
			t.Errorf("statement %d binds its LIMIT bare; use limitArg: %s", i, q)
		}
	}
}

// TestTransitionStatementsArgs checks that a booking's update and a claim's batch
// update take the arguments transitioned gives: updateArgs a booking.
func TestTransitionStatementsArgs(t *testing.T) {
	if got := strings.Count(updateBookingSQL(), "?"); got != updateArgs {
		t.Errorf("qUpdateBooking has %d placeholders, want %d", got, updateArgs)
	}
	for _, n := range []int{1, 2, claimsPerTx} {
		if got := strings.Count(updateClaimedSQL("INTEGER", n), "?"); got != n*updateArgs {
			t.Errorf("updateClaimedSQL(%d) has %d placeholders, want %d", n, got, n*updateArgs)
		}
	}
}

// TestCreateAtOnceArgs checks that the one-statement creation takes the arguments
// createAtOnceArgs gives: a key's, a booking's, and an event's with its delivery's.
func TestCreateAtOnceArgs(t *testing.T) {
	s := New(Dialect{Name: "test", EncodeTime: func(t time.Time) any { return t }, WritableCTE: true}, nil, nil, testSealer(t))
	b := &skygate.Booking{ID: "booking", AccountID: "account", Status: skygate.BookingPending}
	normaliseBooking(b)
	row, err := s.bookingRow(b)
	if err != nil {
		t.Fatal(err)
	}
	rec := &skygate.IdempotencyRecord{AccountID: "account", Operation: skygate.OperationCreateBooking, Key: "key"}
	recRow, err := s.idempotencyRow(rec)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Count(insertIdempotency, "?"), len(recRow); got != want {
		t.Errorf("insertIdempotency has %d placeholders, want %d", got, want)
	}
	if got, want := strings.Count(registry[qInsertBooking], "?"), len(row); got != want {
		t.Errorf("qInsertBooking has %d placeholders, want %d", got, want)
	}
	for n := range maxEventsAtOnce + 1 {
		events := make([]*skygate.Event, n)
		for i := range events {
			events[i] = &skygate.Event{ID: "event", AccountID: "account", Type: "test.event", CreatedAt: time.Now()}
		}
		args, err := s.createAtOnceArgs(recRow, row, events)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(createBookingSQL(n > 0), "?"); got != len(args) {
			t.Errorf("createBookingSQL with %d events has %d placeholders, want %d", n, got, len(args))
		}
	}
}
